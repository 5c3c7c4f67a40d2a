import { useState } from 'preact/hooks';
import { chosenTeam } from '../shared/team-filter';
import { api, ApiError, ok } from '../api/client';
import type { components } from '../api/openapi';
import { Confirm } from '../shared/confirm';
import { count } from '../shared/format';
import { EditAndDelete, Loading, PageTitle, Problem, Time } from '../shared/ui';
import { useLive } from '../live/use-live';
import { Clip, Table } from '../shared/table';

type Group = components['schemas']['ConcurrencyGroupResponse'];
type Field = 'name' | 'limit';
type Draft = Record<Field, string>;

const EMPTY: Draft = { name: '', limit: '' };

/** The limit as typed: a number when it reads as one, else the text itself, for the API to refuse at its field. */
function limitOf(text: string): number {
  return (/^\s*-?\d+\s*$/.test(text) ? Number(text) : text) as number;
}

/** Concurrency groups (admin): limits shared by the runs of the jobs that name them. */
export function ConcurrencyGroupsPage() {
  const groups = useLive(() => ok(api.GET('/concurrency-groups')), [], { pollMs: 10_000 }); // not in the event stream
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [editing, setEditing] = useState<Group>();
  const [removing, setRemoving] = useState<Group>();
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();

  /** Runs `action`; what the API refused shows at the field it names, the rest above the list. */
  const attempt = async (action: () => Promise<void>) => {
    setProblem(undefined);
    setNotice(undefined);
    setErrors({});
    try {
      await action();
      groups.reload();
    } catch (error) {
      const mistakes = error instanceof ApiError ? error.mistakes : [{ message: (error as Error).message }];
      const atFields: Partial<Record<Field, string>> = {};
      const elsewhere: string[] = [];
      for (const { field, message } of mistakes) {
        if (field === 'name' || field === 'limit')
          atFields[field] = [atFields[field], message].filter(Boolean).join('; ');
        else elsewhere.push(message);
      }
      setErrors(atFields);
      setProblem(elsewhere.join('; ') || undefined);
    }
  };
  const set = (field: Field) => (event: Event) => {
    setDraft({ ...draft, [field]: (event.currentTarget as HTMLInputElement).value });
    setErrors({ ...errors, [field]: undefined });
  };
  const reset = () => {
    setDraft(EMPTY);
    setEditing(undefined);
    setErrors({});
  };
  const save = (event: Event) => {
    event.preventDefault();
    void attempt(async () => {
      const body = { name: draft.name, limit: limitOf(draft.limit) };
      if (editing) {
        await ok(api.PATCH('/concurrency-groups/{id}', { params: { path: { id: editing.id } }, body }));
      } else await ok(api.POST('/concurrency-groups', { body: { ...body, team: chosenTeam() ?? undefined } }));
      setNotice(`Saved ${draft.name}`);
      reset();
    });
  };
  const edit = (group: Group) => {
    reset();
    setEditing(group);
    setDraft({ name: group.name, limit: String(group.limit) });
  };
  const remove = (group: Group) =>
    attempt(async () => {
      setRemoving(undefined);
      await ok(api.DELETE('/concurrency-groups/{id}', { params: { path: { id: group.id } } }));
      if (editing?.id === group.id) reset();
      setNotice(`Deleted ${group.name}`);
    });

  return (
    <>
      <PageTitle title="Concurrency groups">Concurrency groups</PageTitle>
      <form
        class="job-form"
        onSubmit={save}
        aria-label={editing ? `Edit ${editing.name}` : 'New concurrency group'}
        noValidate
      >
        <GroupField field="name" label="Name" value={draft.name} error={errors.name} onInput={set('name')} />
        <GroupField
          field="limit"
          label="Limit"
          value={draft.limit}
          error={errors.limit}
          onInput={set('limit')}
          hint="At most this many runs of its jobs RUNNING at once, across every worker; a change holds from the next claim"
        />
        <div class="actions">
          <button type="submit">{editing ? 'Save group' : 'Add group'}</button>
          {editing && (
            <button type="button" class="quiet" onClick={reset}>
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
          <p>Refused while jobs name it. Runs already queued under it then run without its limit.</p>
        </Confirm>
      )}
      <Problem error={groups.error} />
      {!groups.data && !groups.error && <Loading />}
      {groups.data?.items.length === 0 && (
        <p class="empty">
          No concurrency group yet: a group is a limit shared by the runs of every job that names it, at most that many
          RUNNING at once across every worker. Add one above with <strong>Add group</strong>, then name it in the{' '}
          <strong>Concurrency group</strong> of a job.
        </p>
      )}
      {groups.data && groups.data.items.length > 0 && (
        <Table label="Concurrency groups">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Limit</th>
              <th scope="col">Changed</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {groups.data.items.map((group) => (
              <tr key={group.id}>
                <td>
                  <Clip text={group.name} />
                </td>
                <td>{count(group.limit)}</td>
                <td>
                  <Time iso={group.updatedAt} />
                </td>
                <td>
                  <EditAndDelete name={group.name} onEdit={() => edit(group)} onDelete={() => setRemoving(group)} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}

/** A field of the form, with its hint and what the API said about it at the last save. */
function GroupField(props: {
  field: Field;
  label: string;
  value: string;
  error: string | undefined;
  hint?: string;
  onInput: (event: Event) => void;
}) {
  const { field, label, value, error, hint, onInput } = props;
  const id = `group-${field}`;
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        onInput={onInput}
        autoComplete="off"
        inputMode={field === 'limit' ? 'numeric' : undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
      />
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
