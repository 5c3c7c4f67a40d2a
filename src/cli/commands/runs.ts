import { Command } from 'commander';
import { newText } from '../../shared/domain/text-tail.js';
import type { ApiClient } from '../api-client.js';
import { collectPair, contextOf } from '../context.js';
import { type Column, pc, printJson, printRecord, printTable, status } from '../output.js';
import { type Execution, findJob, jobNames, runId, shortId } from '../refs.js';
import { took, when } from '../when.js';

/** The columns of `runs list`, given the names of the runs' jobs. */
const columns = (names: ReadonlyMap<string, string>): readonly Column<Execution>[] => [
  ['RUN', (run) => shortId(run.id)],
  ['JOB', (run) => names.get(run.jobId)],
  ['STATUS', (run) => run.status],
  ['TRIGGER', (run) => (run.trigger as string).toLowerCase()],
  ['ATTEMPT', (run) => run.attempt],
  ['CREATED', (run) => when(run.createdAt)],
  ['TOOK', (run) => took(run.startedAt as string | null, run.finishedAt as string | null)],
  ['EXIT', (run) => run.exitCode],
];

/** How a run ended, from the `end` frame of its output stream. */
interface End {
  status: string;
  exitCode: number | null;
}

/** What is kept of each stream's printed text, to tell what a new connection sends again. */
const SHOWN_KEPT = 1 << 20;

/**
 * Prints what the run prints (stdout to stdout, stderr to stderr) as it prints it, until the
 * run is final; answers how it ended. A stream that breaks off is opened again: each connection
 * begins with the whole stored tail of each stream, of which only what was not printed yet is.
 */
async function follow(api: ApiClient, id: string): Promise<End> {
  const shown = { stdout: '', stderr: '' };
  let first = { stdout: true, stderr: true };
  const frames = api.resumableStream(`/executions/${id}/output/stream`, {
    query: () => ({}),
    reconnecting: () => {
      process.stderr.write(pc.dim(`[the output stream broke off; reconnecting]\n`));
      first = { stdout: true, stderr: true };
    },
  });
  for await (const frame of frames) {
    if (frame.event === 'stdout' || frame.event === 'stderr') {
      const stream = frame.event;
      const received = JSON.parse(frame.data) as string;
      const { text, gap } = first[stream] ? newText(shown[stream], received) : { text: received, gap: false };
      first[stream] = false;
      if (gap) process.stderr.write(pc.dim(`[output was dropped while reconnecting]\n`));
      (stream === 'stdout' ? process.stdout : process.stderr).write(text);
      shown[stream] = (shown[stream] + text).slice(-SHOWN_KEPT);
    } else if (frame.event === 'truncated') process.stderr.write(pc.dim(`[earlier output was dropped]\n`));
    else if (frame.event === 'error') throw new Error((JSON.parse(frame.data) as { message: string }).message);
    else if (frame.event === 'end') return JSON.parse(frame.data) as End;
  }
  throw new Error(`The output stream of run ${id} ended without its end`);
}

/** A run's own exit code, for a CI step to fail with it: 1 when it failed without one (timeout, cancel). */
function exitCodeOf(end: End): number {
  if (end.exitCode !== null) return end.exitCode;
  return end.status === 'SUCCEEDED' ? 0 : 1;
}

/**
 * The retry queued after a failed attempt, if any. The worker queues it in the transaction that
 * records the failure, so it is there once the failed attempt's stream has ended.
 */
async function retryAfter(api: ApiClient, id: string): Promise<Execution | null> {
  const page = await api.get<{ items: Execution[] }>('/executions', { retryOf: id, limit: 1 });
  return page.items[0] ?? null;
}

/** Who cancelled a run, as the API keeps it. */
interface CancelledBy {
  by: 'caller' | 'job_deletion' | 'scheduler';
  actor: string | null;
}

/** Who cancelled a run, in words: a token's name, its job's deletion, or the scheduler. */
function cancelledBy(value: CancelledBy | null | undefined): string | null {
  if (!value) return null;
  const who = value.actor ? `'${value.actor}'` : 'an unnamed caller';
  if (value.by === 'caller') return who;
  if (value.by === 'job_deletion')
    return value.actor ? `the deletion of its job, by ${who}` : 'the deletion of its job';
  return 'the scheduler (a newer run replaced it)';
}

function describeEnd(execution: Execution, end: End): string {
  const detail = execution.errorMessage ? `: ${execution.errorMessage}` : '';
  return `Run ${execution.id} ${status(end.status)} (exit code ${end.exitCode ?? '-'})${detail}`;
}

export function runCommand(): Command {
  return new Command('run')
    .description('Run a job now')
    .argument('<job>', 'name or id')
    .option('--param <NAME=value>', 'a parameter of the run (repeatable)', collectPair)
    .option('--wait', 'follow its output, and that of its retries, then exit with the last attempt’s exit code')
    .action(async (ref: string, options: { param?: Record<string, string>; wait?: boolean }, command: Command) => {
      const { api, json } = contextOf(command);
      const job = await findJob(api, ref);
      const body = options.param ? { parameters: options.param } : {};
      const execution = await api.post<Execution>(`/jobs/${job.id}/executions`, body);
      if (!options.wait) {
        if (json) printJson(execution);
        else process.stdout.write(`Queued run ${execution.id} of '${job.name}'\n`);
        return;
      }
      process.stderr.write(pc.dim(`Run ${execution.id} of '${job.name}' queued; following its output\n`));
      // a failed attempt that is retried is not the outcome: follow the retries to the last one
      for (let attempt = execution; ;) {
        const end = await follow(api, attempt.id);
        const final = await api.get<Execution>(`/executions/${attempt.id}`);
        const retry = end.status === 'FAILED' ? await retryAfter(api, attempt.id) : null;
        if (!retry) {
          if (json) printJson(final);
          process.stderr.write(`${describeEnd(final, end)}\n`);
          process.exitCode = exitCodeOf(end);
          return;
        }
        process.stderr.write(
          `${describeEnd(final, end)}; attempt ${String(retry.attempt)} is run ${retry.id}, due ${String(retry.dueAt)}: following it\n`,
        );
        attempt = retry;
      }
    });
}

export function logsCommand(): Command {
  return new Command('logs')
    .description('What a run printed')
    .argument('<run>', "the run's id, or its start (the dashboard's short id)")
    .option('-f, --follow', 'follow the live output until the run ends')
    .action(async (ref: string, options: { follow?: boolean }, command: Command) => {
      const { api, json } = contextOf(command);
      const id = await runId(api, ref);
      if (options.follow) {
        await follow(api, id);
        return;
      }
      const output = await api.get<{ stdout: string; stderr: string; truncated: boolean }>(`/executions/${id}/output`);
      if (json) return printJson(output);
      process.stdout.write(output.stdout);
      process.stderr.write(output.stderr);
    });
}

export function runsCommand(): Command {
  const runs = new Command('runs').description('Executions: every run of a job');
  runs
    .command('list')
    .description('List runs, newest first')
    .option('--job <job>', 'of this job (name or id)')
    .option('--status <status>', 'QUEUED, RUNNING, SUCCEEDED, FAILED or CANCELLED')
    .option('--limit <n>', 'at most this many (1 to 100)', '20')
    .action(async (options: { job?: string; status?: string; limit: string }, command: Command) => {
      const { api, json } = contextOf(command);
      const job = options.job ? await findJob(api, options.job) : undefined;
      const page = await api.get<{ items: Execution[] }>('/executions', {
        jobId: job?.id,
        status: options.status,
        limit: options.limit,
      });
      if (json) return printJson(page.items);
      const names = job ? new Map([[job.id, job.name]]) : await jobNames(api, page.items);
      printTable(page.items, columns(names));
    });
  runs
    .command('get <run>')
    .description("Show a run (by its id, or the id's start)")
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { api, json } = contextOf(command);
      const execution = await api.get<Execution>(`/executions/${await runId(api, ref)}`);
      if (json) printJson(execution);
      else printRecord({ ...execution, cancelledBy: cancelledBy(execution.cancelledBy as CancelledBy | null) });
    });
  runs
    .command('cancel <run>')
    .description("Cancel a queued or running run (by its id, or the id's start)")
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { api, json } = contextOf(command);
      const execution = await api.post<Execution>(`/executions/${await runId(api, ref)}/cancel`);
      if (json) printJson(execution);
      else process.stdout.write(`Run ${execution.id} is ${status(execution.status)}\n`);
    });
  return runs;
}
