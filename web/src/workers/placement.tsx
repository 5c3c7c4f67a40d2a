import type { Execution, Job, JobInput, Worker } from '../api/client';

/** The placement fields of the job form by the API's names, with their labels. */
export const PLACEMENT_FIELDS = {
  workerSelector: 'Worker selector',
  runOn: 'Run on',
  maxConcurrent: 'Max concurrent',
  concurrencyGroup: 'Concurrency group',
  priority: 'Priority',
} as const;
export type PlacementField = keyof typeof PLACEMENT_FIELDS;

export const NEW_PLACEMENT: Record<PlacementField, string> = {
  workerSelector: '',
  runOn: 'one',
  maxConcurrent: '',
  concurrencyGroup: '',
  priority: '0',
};

/** `region=eu, gpu=true`, as the form shows labels and as people type them. */
export const labelsText = (labels: Record<string, string>): string =>
  Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');

export function placementValues(job: Job): Record<PlacementField, string> {
  return {
    workerSelector: labelsText(job.workerSelector),
    runOn: job.runOn,
    maxConcurrent: job.maxConcurrent === null ? '' : String(job.maxConcurrent),
    concurrencyGroup: job.concurrencyGroup ?? '',
    priority: String(job.priority),
  };
}

/** What the form sends; text that is no pair or no number goes as typed, for the API to name what is wrong. */
export function placementBody(values: Record<PlacementField, string>, integer: (text: string) => number) {
  const pairs = values.workerSelector
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? [pair, ''] : [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
    });
  return {
    workerSelector: Object.fromEntries(pairs) as Record<string, string>,
    runOn: values.runOn as JobInput['runOn'],
    maxConcurrent: values.maxConcurrent.trim() === '' ? null : integer(values.maxConcurrent),
    concurrencyGroup: values.concurrencyGroup.trim() === '' ? null : values.concurrencyGroup.trim(),
    priority: integer(values.priority),
  };
}

export const PLACEMENT_HINTS: Record<PlacementField, string> = {
  workerSelector: 'Labels a worker must have, for example region=eu, gpu=true; empty: any worker',
  runOn: '',
  maxConcurrent: 'Runs of this job RUNNING at once across all workers; empty: no limit',
  concurrencyGroup: 'A group (admin: POST /concurrency-groups) whose limit its jobs share; empty: none',
  priority: 'From -100 to 100: among due runs, higher first, then the oldest',
};

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
