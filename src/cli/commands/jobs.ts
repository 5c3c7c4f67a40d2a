import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { parse, stringify } from 'yaml';
import { CliError } from '../api-client.js';
import { collectPair, contextOf, findJob, Job } from '../context.js';
import { printJson, printRecord, printTable } from '../output.js';

const COLUMNS = ['name', 'cronExpression', 'timezone', 'enabled', 'nextRunAt', 'lastStatus'];
/** Answered about a job but not part of what one writes (the rest is: PATCH takes it back). */
const READ_ONLY = ['id', 'name', 'nextRunAt', 'lastExecution', 'createdAt', 'updatedAt'];

/** `--set field=value` (a YAML value: numbers, booleans, lists) and `-f job.yaml`, merged into one body. */
function bodyOf(options: { file?: string; set?: Record<string, string> }): Record<string, unknown> {
  const fromFile = options.file ? (parse(readFileSync(options.file, 'utf8')) as Record<string, unknown>) : {};
  const set = Object.entries(options.set ?? {}).map(([field, value]): [string, unknown] => [field, parse(value)]);
  return { ...fromFile, ...Object.fromEntries(set) };
}

const row = (job: Job) => ({ ...job, lastStatus: (job.lastExecution as { status?: string } | null)?.status });

export function jobsCommand(): Command {
  const jobs = new Command('jobs').description('What to run and when');

  jobs
    .command('list')
    .description('List the jobs')
    .option('--name <part>', 'only those whose name contains this')
    .action(async (options: { name?: string }, command: Command) => {
      const { api, json } = contextOf(command);
      const items = await api.all<Job>('/jobs', { name: options.name });
      if (json) printJson(items);
      else printTable(items.map(row), COLUMNS);
    });

  jobs
    .command('get <job>')
    .description('Show a job (by name or id)')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { api, json } = contextOf(command);
      const job = await findJob(api, ref);
      if (json) printJson(job);
      else printRecord(row(job));
    });

  jobs
    .command('create [name]')
    .description('Define a job: the fields of POST /jobs from a file and/or --set')
    .option('-f, --file <job.yaml>', 'a YAML or JSON job')
    .option('--set <field=value>', 'a field, its value read as YAML (repeatable)', collectPair)
    .action(async (name: string | undefined, options: { file?: string; set?: Record<string, string> }, command) => {
      const { api, json } = contextOf(command as Command);
      const job = await api.post<Job>('/jobs', { ...bodyOf(options), ...(name ? { name } : {}) });
      if (json) printJson(job);
      else process.stdout.write(`Created job '${job.name}' (${job.id})\n`);
    });

  jobs
    .command('edit <job>')
    .description('Change a job: the fields given with --set or -f, else in $EDITOR')
    .option('-f, --file <job.yaml>', 'the fields to change, YAML or JSON')
    .option('--set <field=value>', 'a field, its value read as YAML (repeatable)', collectPair)
    .action(async (ref: string, options: { file?: string; set?: Record<string, string> }, command: Command) => {
      const { api, json } = contextOf(command);
      const job = await findJob(api, ref);
      const patch = options.file || options.set ? bodyOf(options) : editInEditor(job);
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
