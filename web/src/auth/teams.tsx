import { useEffect, useState } from 'preact/hooks';
import { api, ok, ROLES, type Role } from '../api/client';
import { useLive } from '../live/use-live';
import { Loading, PageTitle, Problem } from '../shared/ui';
import { Table } from '../shared/table';
import { useSession } from './session';

type Kind = 'group' | 'user';
interface GrantRow {
  kind: Kind;
  subject: string;
  role: Role;
}

/** Whether the caller manages some team's grants: an Orbit admin, or an admin of a team. */
export function administersTeams(me: { admin: boolean; teams: { role: string }[] }): boolean {
  return me.admin || me.teams.some((team) => team.role === 'admin');
}

/** The teams the caller may see; an Orbit admin creates them, a team's admins edit its grants. */
export function TeamsPage() {
  const { me } = useSession();
  const teams = useLive(() => ok(api.GET('/teams')), [], { pollMs: 30_000 });
  const [name, setName] = useState('');
  const [open, setOpen] = useState<string>();
  const [problem, setProblem] = useState<string>();

  const create = (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    ok(api.POST('/teams', { body: { name } })).then(
      (team) => {
        setName('');
        setOpen(team.name);
        teams.reload();
      },
      (error: Error) => setProblem(error.message),
    );
  };
  const administers = (team: string) => me.admin || me.teams.some((t) => t.name === team && t.role === 'admin');

  return (
    <>
      <PageTitle title="Teams">Teams</PageTitle>
      <p>A team gives its roles to groups of the sign-in issuer, or to people by email or user name.</p>
      {me.admin && (
        <form class="inline-form" onSubmit={create}>
          <label for="team-name">New team</label>
          <input id="team-name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />
          <button type="submit">Create team</button>
        </form>
      )}
      <Problem error={problem} />
      <Problem error={teams.error} />
      {!teams.data && !teams.error && <Loading />}
      {teams.data && (
        <Table label="Teams">
          <thead>
            <tr>
              <th scope="col">Team</th>
              <th scope="col">Your role</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {teams.data.items.map((team) => (
              <tr key={team.name}>
                <td>{team.name}</td>
                <td>{team.role ?? 'none'}</td>
                <td>
                  {administers(team.name) && (
                    <button
                      type="button"
                      aria-label={`Grants of ${team.name}`}
                      aria-expanded={open === team.name}
                      onClick={() => setOpen(open === team.name ? undefined : team.name)}
                    >
                      Grants
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {open && <Grants key={open} team={open} />}
      {me.admin && <People />}
    </>
  );
}

/** The people who signed in (Orbit admins): their groups, and a removal that ends their sessions. */
function People() {
  const users = useLive(() => ok(api.GET('/users')), [], { pollMs: 30_000 });
  const [problem, setProblem] = useState<string>();
  const remove = (id: string) => {
    setProblem(undefined);
    ok(api.DELETE('/users/{id}', { params: { path: { id } } })).then(
      () => users.reload(),
      (error: Error) => setProblem(error.message),
    );
  };
  return (
    <section aria-labelledby="people-title">
      <h2 id="people-title">People</h2>
      <Problem error={problem ?? users.error} />
      {users.data && users.data.items.length === 0 && <p>Nobody has signed in through the issuer yet.</p>}
      {users.data && users.data.items.length > 0 && (
        <Table label="People">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Groups</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.data.items.map((user) => (
              <tr key={user.id}>
                <td>{user.name}</td>
                <td>{user.email ?? ''}</td>
                <td>{user.groups.join(', ')}</td>
                <td>
                  {user.removedAt ? (
                    'removed'
                  ) : (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Remove ${user.name}`}
                      onClick={() => remove(user.id)}
                    >
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}

/** A team's grants as an editable list, saved whole (the API replaces them all at once). */
function Grants({ team }: { team: string }) {
  const [rows, setRows] = useState<GrantRow[]>();
  const [problem, setProblem] = useState<string>();
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    ok(api.GET('/teams/{name}/grants', { params: { path: { name: team } } })).then(
      (answer) => setRows(answer.grants as GrantRow[]),
      (error: Error) => setProblem(error.message),
    );
  }, [team]);

  const change = (index: number, patch: Partial<GrantRow>) => {
    setSaved(false);
    setRows(rows!.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  };
  const save = (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    ok(api.PUT('/teams/{name}/grants', { params: { path: { name: team } }, body: { grants: rows! } })).then(
      (answer) => {
        setRows(answer.grants);
        setSaved(true);
      },
      (error: Error) => setProblem(error.message),
    );
  };

  if (!rows) return problem ? <Problem error={problem} /> : <Loading />;
  return (
    <section aria-labelledby="grants-title">
      <h2 id="grants-title">Grants of {team}</h2>
      <form onSubmit={save}>
        {rows.length === 0 && <p>No grants yet: nobody has a role in {team} but Orbit admins.</p>}
        {rows.map((row, index) => (
          <fieldset key={index} class="inline-form">
            <legend class="visually-hidden">Grant {index + 1}</legend>
            <label for={`grant-kind-${index}`}>Kind</label>
            <select
              id={`grant-kind-${index}`}
              value={row.kind}
              onChange={(e) => change(index, { kind: e.currentTarget.value as Kind })}
            >
              <option value="group">group</option>
              <option value="user">person</option>
            </select>
            <label for={`grant-subject-${index}`}>{row.kind === 'group' ? 'Group' : 'Email or user name'}</label>
            <input
              id={`grant-subject-${index}`}
              value={row.subject}
              required
              onInput={(e) => change(index, { subject: e.currentTarget.value })}
            />
            <label for={`grant-role-${index}`}>Role</label>
            <select
              id={`grant-role-${index}`}
              value={row.role}
              onChange={(e) => change(index, { role: e.currentTarget.value as Role })}
            >
              {ROLES.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
            <button
              type="button"
              class="quiet"
              aria-label={`Remove grant ${index + 1}`}
              onClick={() => {
                setSaved(false);
                setRows(rows.filter((_, at) => at !== index));
              }}
            >
              Remove
            </button>
          </fieldset>
        ))}
        <p>
          <button
            type="button"
            onClick={() => {
              setSaved(false);
              setRows([...rows, { kind: 'group', subject: '', role: 'viewer' }]);
            }}
          >
            Add a grant
          </button>{' '}
          <button type="submit">Save grants</button>
        </p>
      </form>
      <Problem error={problem} />
      {saved && <p role="status">Saved: {rows.length} grants.</p>}
    </section>
  );
}
