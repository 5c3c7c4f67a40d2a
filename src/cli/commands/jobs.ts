import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { parse, stringify } from 'yaml';
import { type ApiClient, CliError } from '../api-client.js';
import { collectPair, contextOf } from '../context.js';
import { bodyFields, typedValue } from '../field-values.js';
import { type Column, pc, printJson, printRecord, printTable } from '../output.js';
import { findJob, type Job } from '../refs.js';
import { when } from '../when.js';

const COLUMNS: readonly Column<Job>[] = [
  ['NAME', (job) => job.name],
  ['TEAM', (job) => job.team],
  ['SCHEDULE', (job) => job.cronExpression ?? pc.dim('by hand')],
  ['TIMEZONE', (job) => job.timezone],
  ['ENABLED', (job) => (job.enabled ? 'yes' : 'paused')],
  ['NEXT RUN', (job) => when(job.nextRunAt as string | null)],
  ['LAST RUN', (job) => (job.lastExecution as { status?: string } | null)?.status],
];
/** Answered about a job but not part of what one writes (the rest is: PATCH takes it back). */
const READ_ONLY = ['id', 'name', 'nextRunAt', 'lastExecution', 'createdAt', 'updatedAt'];

/**
 * `-f job.yaml` (YAML or JSON) and `--set field=value`, merged into one body. Each --set value is
 * read as its field's type says in the API's document of `method path`: text for a string.
 */
async function bodyOf(
  api: ApiClient,
  [method, path]: readonly [string, string],
  options: { file?: string; set?: Record<string, string> },
): Promise<Record<string, unknown>> {
  const fromFile = options.file ? readJobFile(options.file) : {};
  const pairs = Object.entries(options.set ?? {});
  if (pairs.length === 0) return fromFile;
  const fields = await bodyFields(api, method, path);
  return { ...fromFile, ...Object.fromEntries(pairs.map(([field, text]) => [field, typedValue(field, text, fields)])) };
}

function readJobFile(path: string): Record<string, unknown> {
  let fields: unknown;
  try {
    fields = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    throw new CliError(`${path} must hold the job's fields, as a mapping`);
  }
  return fields as Record<string, unknown>;
}

const SET_HELP =
  'a field and its value, as text unless the field is a number, a boolean, a list or an object (repeatable)';

const CREATE = ['POST', '/jobs'] as const;
const UPDATE = ['PATCH', '/jobs/{id}'] as const;

export function jobsCommand(): Command {
  const jobs = new Command('jobs').description('What to run and when');

  jobs
    .command('list')
    .description('List the jobs')
    .option('--name <part>', 'only those whose name contains this')
    .option('--team <name>', 'only those of this team (one of yours)')
    .action(async (options: { name?: string; team?: string }, command: Command) => {
      const { api, json } = contextOf(command);
      const items = await api.all<Job>('/jobs', { name: options.name, team: options.team });
      if (json) printJson(items);
      else printTable(items, COLUMNS);
    });

  jobs
    .command('get <job>')
    .description('Show a job (by name or id)')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { api, json } = contextOf(command);
      const job = await findJob(api, ref);
      if (json) printJson(job);
      else printRecord(job);
    });

  jobs
    .command('create [name]')
    .description('Define a job: the fields of POST /jobs from a file and/or --set')
    .option('-f, --file <job.yaml>', 'a YAML or JSON job')
    .option('--set <field=value>', SET_HELP, collectPair)
    .option('--team <name>', "the team that owns it (default: your only team; an admin's: default)")
    .action(
      async (
        name: string | undefined,
        options: { file?: string; set?: Record<string, string>; team?: string },
        command: Command,
      ) => {
        const { api, json } = contextOf(command);
        const job = await api.post<Job>('/jobs', {
          ...(await bodyOf(api, CREATE, options)),
          ...(name ? { name } : {}),
          ...(options.team ? { team: options.team } : {}),
        });
        if (json) printJson(job);
        else process.stdout.write(`Created job '${job.name}' in the team ${job.team} (${job.id})\n`);
      },
    );

  jobs
    .command('edit <job>')
    .description('Change a job: the fields given with --set or -f, else in $EDITOR')
    .option('-f, --file <job.yaml>', 'the fields to change, YAML or JSON')
    .option('--set <field=value>', SET_HELP, collectPair)
    .action(async (ref: string, options: { file?: string; set?: Record<string, string> }, command: Command) => {
      const { api, json } = contextOf(command);
      const job = await findJob(api, ref);
      const patch = options.file || options.set ? await bodyOf(api, UPDATE, options) : editInEditor(job);
      if (Object.keys(patch).length === 0) {
        process.stderr.write('Nothing changed\n');
        return;
      }
      const updated = await api.patch<Job>(`/jobs/${job.id}`, patch);
      if (json) printJson(updated);
      else process.stdout.write(`Updated job '${updated.name}': ${Object.keys(patch).join(', ')}\n`);
    });

  jobs
    .command('delete <job>')
    .description('Delete a job (its history stays)')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { api, json } = contextOf(command);
      const job = await findJob(api, ref);
      await api.delete(`/jobs/${job.id}`);
      if (json) printJson({ id: job.id, name: job.name, deleted: true });
      else process.stdout.write(`Deleted job '${job.name}'\n`);
    });

  for (const [verb, enabled] of [
    ['pause', false],
    ['resume', true],
  ] as const) {
    jobs
      .command(`${verb} <job>`)
      .description(enabled ? 'Let the schedule fire again' : 'Stop the schedule firing (manual runs still go)')
      .action(async (ref: string, _options: unknown, command: Command) => {
        const { api, json } = contextOf(command);
        const job = await api.patch<Job>(`/jobs/${(await findJob(api, ref)).id}`, { enabled });
        if (json) printJson(job);
        else process.stdout.write(`${enabled ? 'Resumed' : 'Paused'} job '${job.name}'\n`);
      });
  }
  return jobs;
}

/** The job's writable fields in $EDITOR as YAML; answers the fields that changed. */
function editInEditor(job: Job): Record<string, unknown> {
  const editor = process.env.VISUAL || process.env.EDITOR;
  if (!editor || !process.stdin.isTTY) throw new CliError('Give the changes with --set or -f (or set $EDITOR)');
  const writable = Object.fromEntries(Object.entries(job).filter(([field]) => !READ_ONLY.includes(field)));
  const dir = mkdtempSync(join(tmpdir(), 'orbit-edit-'));
  try {
    const file = join(dir, `${job.name.replace(/[^\w.-]+/g, '_')}.yaml`);
    writeFileSync(file, stringify(writable));
    const result = spawnSync(editor, [file], { stdio: 'inherit', shell: true });
    if (result.status !== 0) throw new CliError(`${editor} exited with ${result.status}; nothing changed`);
    const edited = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(edited).filter(([field, value]) => JSON.stringify(value) !== JSON.stringify(writable[field])),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
