import { Command } from 'commander';
import { contextOf } from '../context.js';
import { type Column, pc, printJson, printTable } from '../output.js';
import { jobNames, shortId, tokenId } from '../refs.js';
import { when } from '../when.js';

type Row = Record<string, unknown>;

const WORKER_COLUMNS: readonly Column<Row>[] = [
  ['WORKER', (worker) => worker.id],
  ['HOST', (worker) => worker.host],
  ['PID', (worker) => worker.pid],
  ['VERSION', (worker) => worker.version],
  ['CONCURRENCY', (worker) => worker.concurrency],
  ['RUNNING', (worker) => worker.running],
  ['LOAD', (worker) => loadOf(worker)],
  ['RUNS NOW', (worker) => runsNow(worker.executions as HeldRun[])],
  ['STATE', (worker) => (!worker.alive ? 'gone' : worker.draining ? 'draining' : 'alive')],
  ['LAST HEARTBEAT', (worker) => when(worker.lastHeartbeatAt as string)],
];

/** A run a worker holds, as GET /workers lists it. */
interface HeldRun {
  id: string;
  jobName: string | null;
}

/** The host's load over the last minute on its CPUs, as the dashboard shows it; none from a worker that did not say. */
function loadOf(worker: Row): string | null {
  if (worker.loadAverage === null || worker.cpus === null) return null;
  return `${(worker.loadAverage as number).toFixed(2)} on ${worker.cpus as number}`;
}

/** Each run it holds, by its job's name and the run's short id (a job that went: the run alone). */
function runsNow(runs: HeldRun[]): string | null {
  if (runs.length === 0) return null;
  return runs.map((run) => `${run.jobName ?? '(deleted job)'} ${shortId(run.id)}`).join(', ');
}

const TOKEN_COLUMNS: readonly Column<Row>[] = [
  ['TOKEN', (token) => shortId(token.id as string)],
  ['NAME', (token) => token.name],
  ['ROLE', (token) => token.role],
  ['CREATED', (token) => when(token.createdAt as string)],
];

/** `orbit workers list|drain|resume`. */
export function workersCommand(): Command {
  const workers = new Command('workers').description('The worker processes');
  workers
    .command('list')
    .description(
      'Running workers, and those that stopped heartbeating in the last day, with their load and the runs they hold',
    )
    .action(async (_options: unknown, command: Command) => {
      const { api, json } = contextOf(command);
      const { items } = await api.get<{ items: Row[] }>('/workers');
      if (json) printJson(items);
      else printTable(items, WORKER_COLUMNS);
    });
  for (const [verb, description] of [
    ['drain', 'Let a worker finish what it runs and claim nothing new'],
    ['resume', 'Let a drained worker claim runs again'],
  ] as const) {
    workers
      .command(`${verb} <worker>`)
      .description(description)
      .action(async (id: string, _options: unknown, command: Command) => {
        const { api, json } = contextOf(command);
        const worker = await api.post<unknown>(`/workers/${encodeURIComponent(id)}/${verb}`);
        if (json) printJson(worker);
        else process.stdout.write(`${verb === 'drain' ? 'Draining' : 'Resumed'} worker ${id}\n`);
      });
  }
  return workers;
}

/** `orbit tokens list|create|revoke`, through the API (admin). */
export function tokensCommand(): Command {
  const tokens = new Command('tokens').description('API tokens (admin), through the API');
  tokens
    .command('list')
    .description('The tokens that are not revoked')
    .action(async (_options: unknown, command: Command) => {
      const { api, json } = contextOf(command);
      const items = await api.all<Row>('/tokens');
      if (json) printJson(items);
      else printTable(items, TOKEN_COLUMNS);
    });
  tokens
    .command('create')
    .description('Make a token; its secret is printed once, on stdout')
    .requiredOption('--name <name>', 'who or what uses it')
    .requiredOption('--role <role>', 'viewer, operator or admin')
    .action(async (options: { name: string; role: string }, command: Command) => {
      const { api, json } = contextOf(command);
      const created = await api.post<{ id: string; name: string; role: string; token: string }>('/tokens', options);
      if (json) return printJson(created);
      process.stderr.write(
        `Created token '${created.name}' (${created.role}), id ${created.id}. The secret, shown once:\n`,
      );
      process.stdout.write(`${created.token}\n`);
    });
  tokens
    .command('revoke <token>')
    .description("Revoke a token (by its id, or the id's start): requests with it are refused from then on")
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { api, json } = contextOf(command);
      const id = await tokenId(api, ref);
      await api.delete(`/tokens/${id}`);
      if (json) printJson({ id, revoked: true });
      else process.stdout.write(`Revoked token ${id}\n`);
    });
  return tokens;
}

interface OrbitEvent {
  seq: number;
  type: string;
  at: string;
  jobId: string;
  executionId: string | null;
  to: string | null;
  exitCode: number | null;
}

/** The columns of `events`, given the names of the events' jobs. */
const eventColumns = (names: ReadonlyMap<string, string>): readonly Column<OrbitEvent>[] => [
  ['SEQ', (event) => event.seq],
  ['AT', (event) => when(event.at)],
  ['EVENT', (event) => event.type],
  ['JOB', (event) => names.get(event.jobId)],
  ['RUN', (event) => event.executionId && shortId(event.executionId)],
  ['STATUS', (event) => event.to],
  ['EXIT', (event) => event.exitCode],
];

/** `orbit events [-f]`: the stream of every state change. */
export function eventsCommand(): Command {
  return new Command('events')
    .description('Every state change, in order')
    .option('-f, --follow', 'follow new events as they happen')
    .option('--after <seq>', 'start after this event')
    .action(async (options: { follow?: boolean; after?: string }, command: Command) => {
      const { api, json } = contextOf(command);
      if (!options.follow) {
        const { items } = await api.get<{ items: OrbitEvent[] }>('/events', { after: options.after });
        if (json) printJson(items);
        else printTable(items, eventColumns(await jobNames(api, items)));
        return;
      }
      // a stream that breaks off is opened again after the last event it sent (the opening
      // frame's id is where it began: no event in between is missed)
      let after = options.after;
      const frames = api.resumableStream('/events/stream', {
        query: () => ({ after }),
        reconnecting: () => process.stderr.write(pc.dim(`[the event stream broke off; reconnecting]\n`)),
      });
      const names = new Map<string, string>();
      for await (const frame of frames) {
        if (frame.id) after = frame.id;
        if (!frame.data) continue; // the opening frame carries only the cursor
        const event = JSON.parse(frame.data) as OrbitEvent;
        if (json) {
          process.stdout.write(`${JSON.stringify(event)}\n`); // one per line: NDJSON
          continue;
        }
        if (event.jobId && !names.has(event.jobId)) {
          for (const [id, name] of await jobNames(api, [event])) names.set(id, name);
        }
        const time = new Date(event.at).toLocaleTimeString(undefined, { hour12: false });
        const run = event.executionId && `run ${shortId(event.executionId)}`;
        const exit = event.exitCode === null ? null : `exit ${event.exitCode}`;
        const what = [names.get(event.jobId), run, event.to, exit].filter((v) => v != null);
        process.stdout.write(`${event.seq}  ${time}  ${event.type}  ${what.join('  ')}\n`);
      }
    });
}
