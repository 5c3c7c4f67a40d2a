import { useState } from 'preact/hooks';
import { api, ok, ROLES, type CreatedToken, type Role, type Token } from '../api/client';
import { Confirm } from '../shared/confirm';
import { Loading, PageTitle, Problem, Time } from '../shared/ui';
import { useLive } from '../live/use-live';
import { Link, withQuery } from '../shared/router';
import { Clip, Table } from '../shared/table';
import { useSession } from './session';

/** How long a person's own token may live, as the form offers it. */
const LIFETIMES = [7, 30, 90, 365];

/** Who may open the Tokens page: admins (every token), and people (their own). */
export function managesTokens(session: { me: { kind: string }; can: (role: Role) => boolean }): boolean {
  return session.can('admin') || session.me.kind === 'user';
}

export function TokensPage({ query }: { query: URLSearchParams }) {
  const { me } = useSession();
  const person = me.kind === 'user';
  const teams = me.admin ? ['default'] : me.teams.map((t) => t.name);
  const [days, setDays] = useState(30);
  const [team, setTeam] = useState(teams[0] ?? 'default');
  const cursor = query.get('cursor') ?? undefined;
  const tokens = useLive(() => ok(api.GET('/tokens', { params: { query: { cursor, limit: 50 } } })), [cursor], {
    pollMs: 10_000, // not in the event stream
  });
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [created, setCreated] = useState<CreatedToken>();
  const [revoking, setRevoking] = useState<Token>();
  const [problem, setProblem] = useState<string>();
  const [copied, setCopied] = useState(false);

  const attempt = async (action: () => Promise<void>) => {
    setProblem(undefined);
    try {
      await action();
      tokens.reload();
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  const issue = (event: Event) => {
    event.preventDefault();
    void attempt(async () => {
      setCopied(false);
      const expiresAt = new Date(Date.now() + days * 86_400_000).toISOString();
      setCreated(await ok(api.POST('/tokens', { body: person ? { name, role, team, expiresAt } : { name, role } })));
      setName('');
    });
  };
  const revoke = (token: Token) =>
    attempt(async () => {
      setRevoking(undefined);
      await ok(api.DELETE('/tokens/{id}', { params: { path: { id: token.id } } }));
    });

  return (
    <>
      <PageTitle title="Tokens">Tokens</PageTitle>
      {person && (
        <p>
          Your own tokens, for scripts that act as you: each holds at most your role in its team, and stops working when
          it expires or you lose that role.
        </p>
      )}
      <form class="inline-form" onSubmit={issue}>
        <label for="token-name">Name</label>
        <input id="token-name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />
        <label for="token-role">Role</label>
        <select id="token-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        {person && teams.length > 1 && (
          <>
            <label for="token-team">Team</label>
            <select id="token-team" value={team} onChange={(e) => setTeam(e.currentTarget.value)}>
              {teams.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </>
        )}
        {person && (
          <>
            <label for="token-days">Expires in</label>
            <select id="token-days" value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
              {LIFETIMES.map((d) => (
                <option key={d} value={d}>
                  {d} days
                </option>
              ))}
            </select>
          </>
        )}
        <button type="submit">Issue token</button>
      </form>
      <Problem error={problem} />
      {created && (
        <div role="status" class="secret">
          <p>
            The secret of <strong>{created.name}</strong>, shown this once (Orbit keeps only a hash):
          </p>
          <code>{created.token}</code>{' '}
          <button
            type="button"
            onClick={() => void navigator.clipboard.writeText(created.token).then(() => setCopied(true))}
          >
            {copied ? 'Copied' : 'Copy'}
          </button>
        </div>
      )}
      {revoking && (
        <Confirm
          title={`Revoke ${revoking.name}?`}
          confirm="Revoke"
          onConfirm={() => void revoke(revoking)}
          onClose={() => setRevoking(undefined)}
        >
          <p>Every request with it is refused at once, on every node.</p>
        </Confirm>
      )}
      <Problem error={tokens.error} />
      {!tokens.data && !tokens.error && <Loading />}
      {tokens.data && (
        <Table label="Tokens">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Issued</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.items.map((token) => (
              <tr key={token.id}>
                <td>
                  <Clip text={token.name} />
                </td>
                <td>{token.role}</td>
                <td>
                  <Time iso={token.createdAt} />
                </td>
                <td>{token.expiresAt ? <Time iso={token.expiresAt} /> : 'never'}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Revoke ${token.name}`}
                    onClick={() => setRevoking(token)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <nav aria-label="Pages" class="pager">
        {cursor && <Link href="/tokens">First page</Link>}
        {tokens.data?.nextCursor && (
          <Link href={withQuery('/tokens', { cursor: tokens.data.nextCursor })}>Next page</Link>
        )}
      </nav>
    </>
  );
}
