import { useEffect, useRef, useState } from 'preact/hooks';
import type { paths } from '../api/openapi';
import { Link, navigate, withQuery } from '../shared/router';

type AuditAction = NonNullable<NonNullable<paths['/audit']['get']['parameters']['query']>['action']>[number];

/** Every action the API filters by: typed by its OpenAPI document, so a new one fails typecheck until listed. */
const ACTIONS = Object.keys({
  'job.created': 0,
  'job.updated': 0,
  'job.deleted': 0,
  'job.paused': 0,
  'job.resumed': 0,
  'execution.triggered': 0,
  'execution.cancelled': 0,
  'execution.backfilled': 0,
  'execution.started': 0,
  'execution.succeeded': 0,
  'execution.failed': 0,
  'token.created': 0,
  'token.revoked': 0,
  'channel.created': 0,
  'channel.updated': 0,
  'channel.deleted': 0,
  'channel.tested': 0,
  'concurrency-group.created': 0,
  'concurrency-group.updated': 0,
  'concurrency-group.deleted': 0,
  'worker.drained': 0,
  'worker.resumed': 0,
  'file.applied': 0,
  'team.created': 0,
  'team.deleted': 0,
  'team.grants_replaced': 0,
  'user.removed': 0,
} satisfies Record<AuditAction, 0>) as AuditAction[];

/** The filters as the address holds them (from and to as instants), so a link shares them and Back restores them. */
export interface AuditFilters {
  action: string;
  actor: string;
  targetId: string;
  from: string;
  to: string;
}

export function auditFilters(query: URLSearchParams): AuditFilters {
  const get = (key: keyof AuditFilters) => query.get(key) ?? '';
  return { action: get('action'), actor: get('actor'), targetId: get('targetId'), from: get('from'), to: get('to') };
}

/** What GET /audit takes: the filters that are set. */
export function auditQuery(filters: AuditFilters) {
  return {
    action: filters.action ? [filters.action as AuditAction] : undefined,
    actor: filters.actor || undefined,
    targetId: filters.targetId || undefined,
    from: filters.from || undefined,
    to: filters.to || undefined,
  };
}

export function isFiltered(filters: AuditFilters): boolean {
  return Object.values(filters).some((value) => value !== '');
}

/** The address of the filtered list, from its newest page unless a cursor is given. */
export function auditHref(filters: AuditFilters, cursor?: string): string {
  return withQuery('/audit', { ...filters, cursor });
}

/** An instant as a datetime-local field shows it: the browser's zone, to the second. */
function localInput(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
}

/** A datetime-local value (the browser's zone) as an instant; a value the address held unchanged stays as it was. */
function instant(local: string, held: string): string {
  if (!local) return '';
  if (local === localInput(held)) return held;
  return new Date(local).toISOString();
}

/** The fields as the form holds them: a keystroke's re-render may not have happened yet. */
function formFields(form: HTMLFormElement): AuditFilters {
  const data = new FormData(form);
  const field = (key: keyof AuditFilters) => {
    const value = data.get(key);
    return typeof value === 'string' ? value : '';
  };
  return {
    action: field('action'),
    actor: field('actor'),
    targetId: field('targetId'),
    from: field('from'),
    to: field('to'),
  };
}

export function AuditFilterForm({ filters }: { filters: AuditFilters }) {
  const fields = { ...filters, from: localInput(filters.from), to: localInput(filters.to) };
  const [draft, setDraft] = useState(fields);
  // Back or a link changed the address: the fields show it. Only on a change, not at mount,
  // where it would wipe what was typed before the effect ran
  const shown = useRef(auditHref(filters));
  useEffect(() => {
    const href = auditHref(filters);
    if (shown.current !== href) {
      shown.current = href;
      setDraft(fields);
    }
  });
  const set = (key: keyof AuditFilters) => (event: { currentTarget: { value: string } }) => {
    const value = event.currentTarget.value;
    setDraft((current) => ({ ...current, [key]: value }));
  };
  // The fields already show the filters they apply: only a change of the address made elsewhere
  // resets them, else a field typed in before the re-render would be wiped by it
  const apply = (next: typeof draft) => {
    const href = auditHref({
      action: next.action,
      actor: next.actor.trim(),
      targetId: next.targetId.trim(),
      from: instant(next.from, filters.from),
      to: instant(next.to, filters.to),
    });
    shown.current = href;
    setDraft((current) => ({ ...current, action: next.action }));
    navigate(href);
  };

  return (
    <form
      class="toolbar"
      role="search"
      aria-label="Filter the audit trail"
      onSubmit={(e) => {
        e.preventDefault();
        apply(formFields(e.currentTarget));
      }}
    >
      <label for="audit-action">Action</label>
      <select
        id="audit-action"
        name="action"
        value={draft.action}
        onChange={(e) => apply({ ...draft, action: e.currentTarget.value })}
      >
        <option value="">All actions</option>
        {ACTIONS.map((action) => (
          <option key={action} value={action}>
            {action}
          </option>
        ))}
      </select>
      <label for="audit-actor">Actor</label>
      <input id="audit-actor" name="actor" type="search" value={draft.actor} onInput={set('actor')} />
      <label for="audit-target">Target id</label>
      <input id="audit-target" name="targetId" type="search" value={draft.targetId} onInput={set('targetId')} />
      <label for="audit-from">From</label>
      <input id="audit-from" name="from" type="datetime-local" step={1} value={draft.from} onInput={set('from')} />
      <label for="audit-to">To (excluded)</label>
      <input id="audit-to" name="to" type="datetime-local" step={1} value={draft.to} onInput={set('to')} />
      <button type="submit">Filter</button>
      {isFiltered(filters) && <Link href="/audit">Clear filters</Link>}
    </form>
  );
}
