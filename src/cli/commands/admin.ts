import { Command } from 'commander';
import { contextOf } from '../context.js';
import { pc, printJson, printTable } from '../output.js';

/** `orbit workers list|drain|resume`. */
export function workersCommand(): Command {
  const workers = new Command('workers').description('The worker processes');
  workers
    .command('list')
    .description('Running workers, and those that stopped heartbeating in the last day')
    .action(async (_options: unknown, command: Command) => {
      const { api, json } = contextOf(command);
      const { items } = await api.get<{ items: Record<string, unknown>[] }>('/workers');
      if (json) printJson(items);
      else printTable(items, ['id', 'host', 'pid', 'version', 'concurrency', 'running', 'alive', 'lastHeartbeatAt']);
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
  tokens.command('list').action(async (_options: unknown, command: Command) => {
    const { api, json } = contextOf(command);
    const items = await api.all<Record<string, unknown>>('/tokens');
    if (json) printJson(items);
    else printTable(items, ['id', 'name', 'role', 'createdAt']);
  });
  tokens
    .command('create')
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
  tokens.command('revoke <id>').action(async (id: string, _options: unknown, command: Command) => {
    const { api, json } = contextOf(command);
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

const EVENT_COLUMNS = ['seq', 'at', 'type', 'jobId', 'executionId', 'to', 'exitCode'];

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
        else printTable(items, EVENT_COLUMNS);
        return;
      }
      // a stream that breaks off is opened again after the last event it sent (the opening
      // frame's id is where it began: no event in between is missed)
      let after = options.after;
      const frames = api.resumableStream('/events/stream', {
        query: () => ({ after }),
        reconnecting: () => process.stderr.write(pc.dim(`[the event stream broke off; reconnecting]\n`)),
      });
      for await (const frame of frames) {
        if (frame.id) after = frame.id;
        if (!frame.data) continue; // the opening frame carries only the cursor
        const event = JSON.parse(frame.data) as OrbitEvent;
        if (json)
          process.stdout.write(`${JSON.stringify(event)}\n`); // one per line: NDJSON
        else {
          const what = [event.jobId, event.executionId, event.to, event.exitCode].filter((v) => v != null);
          process.stdout.write(`${event.seq}  ${event.at}  ${event.type}  ${what.join('  ')}\n`);
        }
      }
    });
}
