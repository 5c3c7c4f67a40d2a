import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import type { ExecutionStatus } from '../api/client';

export { Time } from './time';

/** The page's heading, focused on arrival so a screen reader announces where a link led. */
export function PageTitle({ children, title }: { children: ComponentChildren; title: string }) {
  useEffect(() => {
    document.title = `${title} · Orbit`;
    document.querySelector<HTMLElement>('h1')?.focus();
  }, [title]);
  return <h1 tabIndex={-1}>{children}</h1>;
}

export function Status({ status }: { status: string }) {
  return <span class={`status status-${status.toLowerCase() as Lowercase<ExecutionStatus>}`}>{status}</span>;
}

/** A failed load or action, in the API's own words. */
export function Problem({ error }: { error: Error | string | undefined }) {
  if (!error) return null;
  return (
    <p role="alert" class="problem">
      {typeof error === 'string' ? error : error.message}
    </p>
  );
}

export function Loading() {
  return <p class="loading">Loading…</p>;
}

/** A row's Edit and Delete buttons, named for the row (`Edit nightly-backup`): Delete only asks, its dialog decides. */
export function EditAndDelete({ name, onEdit, onDelete }: { name: string; onEdit: () => void; onDelete: () => void }) {
  return (
    <>
      <button type="button" class="quiet" aria-label={`Edit ${name}`} onClick={onEdit}>
        Edit
      </button>{' '}
      <button type="button" class="danger" aria-label={`Delete ${name}`} onClick={onDelete}>
        Delete
      </button>
    </>
  );
}
