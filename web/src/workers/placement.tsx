import type { Execution, Worker } from '../api/client';

/** `region=eu, gpu=true`, as the dashboard shows labels and as people type them. */
export const labelsText = (labels: Record<string, string>): string =>
  Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');

/** A queued run that no live worker can take says so. */
export function WaitingFor({ execution }: { execution: Execution }) {
  if (execution.status !== 'QUEUED' || !execution.waitingFor) return null;
  return (
    <p class="problem" role="status">
      Waiting: {execution.waitingFor}
    </p>
  );
}

export function WorkerLabels({ worker }: { worker: Worker }) {
  return <code>{labelsText(worker.labels)}</code>;
}
