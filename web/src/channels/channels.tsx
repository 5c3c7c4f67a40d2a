import { useState } from 'preact/hooks';
import { chosenTeam } from '../shared/team-filter';
import { api, ok } from '../api/client';
import type { components } from '../api/openapi';
import { Confirm } from '../shared/confirm';
import { Deliveries } from './deliveries';
import { EditAndDelete, Loading, PageTitle, Problem } from '../shared/ui';
import { useLive } from '../live/use-live';
import { Link, navigate, withQuery } from '../shared/router';
import { count } from '../shared/format';
import { Clip, Table } from '../shared/table';

type Channel = components['schemas']['ChannelResponse'];
type ChannelType = Channel['type'];
type ChannelBody = components['schemas']['CreateChannelDto'];

interface Draft {
  name: string;
  type: ChannelType;
  url: string;
  secret: string;
  to: string;
  allJobsOn: string;
}

const EMPTY: Draft = { name: '', type: 'webhook', url: '', secret: '', to: '', allJobsOn: '' };
const list = (text: string) =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);

/**
 * The body of a create or an edit. Secrets are write-only: the API never answers them, so an
 * edit sends the URL and the secret only when they were typed again (empty: kept as they are).
 */
function bodyOf(draft: Draft, editing: boolean): ChannelBody {
  const body: ChannelBody = { name: draft.name, type: draft.type };
  if (draft.type !== 'email' && (draft.url !== '' || !editing)) body.url = draft.url;
  if (draft.type === 'webhook' && draft.secret !== '') body.secret = draft.secret;
  if (draft.type === 'email') body.to = list(draft.to);
  body.allJobs = draft.allJobsOn.trim() === '' ? null : { on: list(draft.allJobsOn) as never };
  return body;
}

/** Where a channel sends: its URL as the API masks it, or its recipients. */
function sendsTo(channel: Channel): string {
  const settings = channel.settings as { url?: string; to?: string[] };
  return settings.url ?? settings.to?.join(', ') ?? '';
}

/** The jobs whose alert rules name the channel, each linked, with what it alerts on. */
function ChannelJobs({ channel }: { channel: Channel }) {
  if (channel.jobCount === 0) return <span class="hint">none</span>;
  const more = channel.jobCount - channel.jobs.length;
  return (
    <ul class="plain">
      {channel.jobs.map((job) => (
        <li key={job.id}>
          <Link href={`/jobs/${job.id}`}>{job.name}</Link>: {job.on.join(', ')}
        </li>
      ))}
      {more > 0 && <li>and {count(more)} more</li>}
    </ul>
  );
}

/** Channels (admin): where alerts go, with Send test, and the deliveries of the one chosen. */
export function ChannelsPage({ query }: { query: URLSearchParams }) {
  const chosen = query.get('channel') ?? undefined;
  const channels = useLive(() => ok(api.GET('/channels', { params: { query: { limit: 100 } } })), [], {
    pollMs: 10_000,
  });
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [editing, setEditing] = useState<Channel>();
  const [removing, setRemoving] = useState<Channel>();
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();

  const attempt = async (action: () => Promise<void>) => {
    setProblem(undefined);
    setNotice(undefined);
    try {
      await action();
      channels.reload();
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  const set = (field: keyof Draft) => (event: Event) =>
    setDraft({ ...draft, [field]: (event.currentTarget as HTMLInputElement).value });
  const save = (event: Event) => {
    event.preventDefault();
    void attempt(async () => {
      const body = bodyOf(draft, editing !== undefined);
      if (editing) await ok(api.PATCH('/channels/{id}', { params: { path: { id: editing.id } }, body }));
      else await ok(api.POST('/channels', { body: { ...body, team: chosenTeam() ?? undefined } }));
      setNotice(`Saved ${draft.name}`);
      setDraft(EMPTY);
      setEditing(undefined);
    });
  };
  const edit = (channel: Channel) => {
    setEditing(channel);
    const to = (channel.settings as { to?: string[] }).to ?? [];
    setDraft({
      ...EMPTY,
      name: channel.name,
      type: channel.type,
      to: to.join(', '),
      allJobsOn: channel.allJobs?.on?.join(', ') ?? '',
    });
  };
  const test = (channel: Channel) =>
    attempt(async () => {
      const delivery = await ok(api.POST('/channels/{id}/test', { params: { path: { id: channel.id } } }));
      setNotice(`Test to ${channel.name}: ${delivery.status}`);
      navigate(withQuery('/channels', { channel: channel.id }));
    });
  const remove = (channel: Channel) =>
    attempt(async () => {
      setRemoving(undefined);
      await ok(api.DELETE('/channels/{id}', { params: { path: { id: channel.id } } }));
    });

  return (
    <>
      <PageTitle title="Channels">Channels</PageTitle>
      <form class="job-form" onSubmit={save} aria-label={editing ? `Edit ${editing.name}` : 'New channel'}>
        <div class="field">
          <label for="channel-name">Name</label>
          <input id="channel-name" value={draft.name} onInput={set('name')} required />
        </div>
        <div class="field">
          <label for="channel-type">Type</label>
          <select id="channel-type" value={draft.type} onChange={set('type')}>
            <option value="webhook">webhook</option>
            <option value="slack">slack</option>
            <option value="email">email</option>
          </select>
        </div>
        {draft.type !== 'email' && (
          <div class="field">
            <label for="channel-url">URL</label>
            <input id="channel-url" value={draft.url} onInput={set('url')} autoComplete="off" />
            {editing && <p class="hint">Write-only: empty keeps the stored one.</p>}
          </div>
        )}
        {draft.type === 'webhook' && (
          <div class="field">
            <label for="channel-secret">Secret</label>
            <input
              id="channel-secret"
              type="password"
              value={draft.secret}
              onInput={set('secret')}
              autoComplete="off"
            />
            <p class="hint">whsec_…, write-only{editing ? ': empty keeps the stored one' : ''}</p>
          </div>
        )}
        {draft.type === 'email' && (
          <div class="field">
            <label for="channel-to">To</label>
            <input id="channel-to" value={draft.to} onInput={set('to')} />
            <p class="hint">Addresses, separated by commas</p>
          </div>
        )}
        <div class="field">
          <label for="channel-all-jobs">Every job, on</label>
          <input id="channel-all-jobs" value={draft.allJobsOn} onInput={set('allJobsOn')} />
          <p class="hint">
            Events for every job (failed, recovered, late, …) and for the whole cluster (retention_failed,
            retention_behind, retention_recovered); empty: only the jobs that name it
          </p>
        </div>
        <div class="actions">
          <button type="submit">{editing ? 'Save channel' : 'Add channel'}</button>
          {editing && (
            <button type="button" class="quiet" onClick={() => (setEditing(undefined), setDraft(EMPTY))}>
              Cancel
            </button>
          )}
        </div>
      </form>
      <Problem error={problem} />
      {notice && <p role="status">{notice}</p>}
      {removing && (
        <Confirm
          title={`Delete ${removing.name}?`}
          confirm="Delete"
          onConfirm={() => void remove(removing)}
          onClose={() => setRemoving(undefined)}
        >
          <p>Its deliveries go with it.</p>
        </Confirm>
      )}
      <Problem error={channels.error} />
      {!channels.data && !channels.error && <Loading />}
      {channels.data?.items.length === 0 && (
        <p class="empty">
          No channel yet: a channel is where alerts go, a webhook, a Slack incoming webhook or e-mail. Add one above
          with <strong>Add channel</strong>, then name it in the Alerts of a job, or fill <strong>Every job, on</strong>{' '}
          for it to take the events of every job.
        </p>
      )}
      {channels.data && channels.data.items.length > 0 && (
        <Table label="Channels">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Sends to</th>
              <th scope="col">Jobs</th>
              <th scope="col">Every job</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {channels.data.items.map((channel) => (
              <tr key={channel.id}>
                <td>
                  <Link href={withQuery('/channels', { channel: channel.id })} class="clip" title={channel.name}>
                    {channel.name}
                  </Link>
                </td>
                <td>{channel.type}</td>
                <td>
                  <Clip text={sendsTo(channel)} size="wide" />
                </td>
                <td>
                  <ChannelJobs channel={channel} />
                </td>
                <td>{channel.allJobs?.on?.join(', ') ?? ''}</td>
                <td>
                  <button type="button" aria-label={`Send test to ${channel.name}`} onClick={() => void test(channel)}>
                    Send test
                  </button>{' '}
                  <EditAndDelete
                    name={channel.name}
                    onEdit={() => edit(channel)}
                    onDelete={() => setRemoving(channel)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {chosen && <Deliveries channel={chosen} />}
    </>
  );
}
