import type { Job, JobInput, Mistake } from '../../api/client';
import { labelsText } from '../../workers/placement';
import {
  alertsOf,
  alertsText,
  integer,
  optionalInteger,
  optionalText,
  selectorOf,
  triggersOf,
  triggersText,
} from './field-text';

/** The form's sections in the order a reader scans them: what, when and how often first, the rest folded. */
export const SECTIONS = [
  { title: 'Basics' },
  { title: 'Retries and limits' },
  { title: 'Which slots fire', advanced: true },
  { title: 'Where it runs', advanced: true },
  { title: 'Chains and parameters', advanced: true },
  { title: 'Alerts', advanced: true },
] as const;

/** How a field is typed in. */
export type InputKind =
  | { kind: 'text'; placeholder?: string }
  /** One line that is no prose (no spelling checks), such as a cron expression. */
  | { kind: 'code' }
  | { kind: 'integer' }
  /** Several lines that are no prose, with this many rows shown. */
  | { kind: 'lines'; rows: number }
  /** One of the API's values, each shown with what it means. */
  | { kind: 'choice'; options: ReadonlyArray<readonly [value: string, meaning: string]> }
  /** Checked is the value 'true', unchecked ''. */
  | { kind: 'checkbox' }
  /** A list edited as rows of `item`s, a cell a column; the text is the list as JSON. */
  | { kind: 'rows'; item: string; columns: readonly Column[] };

/** A cell of each row: the key it writes in its item, and how it is typed in. */
export interface Column {
  key: string;
  label: string;
  input: 'text' | 'code' | 'checkbox';
  /** Left empty, it writes null (none). */
  optional?: true;
}

/** The form's values by field name, as its inputs hold them: text. */
export type FormValues = Readonly<Record<string, string>>;

interface Common {
  /** What people (and tests) know the field by. */
  label: string;
  section: (typeof SECTIONS)[number]['title'];
  input: InputKind;
  /** Shown under the input. */
  hint?: string;
  /** The dashboard's page about what the field names, linked after the hint. */
  see?: { href: string; title: string };
  /** Its value in the form of a new job. */
  initial: string;
  /** Its value in the form of a job read from the API. */
  read: (job: Job) => string;
}

/**
 * A field of the API. Its name is the input's id, the key it writes in the request body, and the
 * API error `field` it shows the messages of (by the head of the path: `triggers[0].after` shows
 * beside `triggers`; a field of rows shows `parameters[0].name` at its cell).
 */
type ApiField = {
  [K in keyof JobInput]-?: Common & {
    name: K;
    /** Its value in the request body, from its text (and the others', where one depends on another). */
    write: (text: string, values: FormValues) => JobInput[K];
  };
}[keyof JobInput];

/** A control of the form alone: it writes no key and shows no error of its own (another field's write reads it). */
type FormOnlyField = Common & { name: string; write?: never };

export type JobField = ApiField | FormOnlyField;

/**
 * Every field of the job form, in the order it is drawn in its section: a new job field is one
 * entry here.
 */
export const JOB_FIELDS = [
  {
    name: 'name',
    label: 'Name',
    section: 'Basics',
    input: { kind: 'text' },
    initial: '',
    read: (job) => job.name,
    write: (text) => text,
  },
  {
    name: 'description',
    label: 'Description',
    section: 'Basics',
    input: { kind: 'lines', rows: 2 },
    hint: 'What the job is for, and whom to ask',
    initial: '',
    read: (job) => job.description,
    write: (text) => text,
  },
  {
    name: 'command',
    label: 'Command',
    section: 'Basics',
    input: { kind: 'lines', rows: 3 },
    hint: 'Run by /bin/sh -c',
    initial: '',
    read: (job) => job.command,
    write: (text) => text,
  },
  {
    name: 'cronExpression',
    label: 'Cron expression',
    section: 'Basics',
    input: { kind: 'code' },
    hint: '5 fields (minute hour day month weekday), 6 with seconds first, or @hourly, @daily, @weekly, @monthly, @yearly',
    initial: '',
    read: (job) => job.cronExpression ?? '',
    write: (text, values) => (values.noSchedule ? null : text),
  },
  {
    name: 'timezone',
    label: 'Time zone',
    section: 'Basics',
    input: { kind: 'text' },
    hint: 'IANA name, for example Europe/Berlin',
    initial: 'UTC',
    read: (job) => job.timezone,
    write: (text) => text,
  },
  {
    name: 'noSchedule',
    label: 'No schedule',
    section: 'Basics',
    input: { kind: 'checkbox' },
    initial: '',
    read: (job) => (job.cronExpression === null ? 'true' : ''),
  },
  {
    name: 'team',
    label: 'Team',
    section: 'Basics',
    input: { kind: 'text', placeholder: 'your only team' },
    hint: 'The team that owns the job, its runs and history; changing it moves the job (admin of both teams)',
    see: { href: '/teams', title: 'Teams' },
    initial: '',
    read: (job) => job.team ?? '',
    write: (text) => (text.trim() === '' ? undefined : text.trim()),
  },
  {
    name: 'maxRetries',
    label: 'Max retries',
    section: 'Retries and limits',
    input: { kind: 'integer' },
    initial: '0',
    read: (job) => String(job.maxRetries),
    write: integer,
  },
  {
    name: 'timeoutSeconds',
    label: 'Timeout (seconds)',
    section: 'Retries and limits',
    input: { kind: 'integer' },
    initial: '3600',
    read: (job) => String(job.timeoutSeconds),
    write: integer,
  },
  {
    name: 'concurrencyPolicy',
    label: 'Overlapping runs',
    section: 'Retries and limits',
    input: {
      kind: 'choice',
      options: [
        ['ALLOW', 'run side by side'],
        ['FORBID', 'skip while one is active'],
        ['REPLACE', 'cancel the active one'],
      ],
    },
    initial: 'ALLOW',
    read: (job) => job.concurrencyPolicy,
    write: (text) => text as JobInput['concurrencyPolicy'],
  },
  {
    name: 'misfirePolicy',
    label: 'Missed slots',
    section: 'Which slots fire',
    input: {
      kind: 'choice',
      options: [
        ['RUN_ONCE', 'run the latest missed slot once'],
        ['SKIP', 'drop missed slots'],
      ],
    },
    initial: 'RUN_ONCE',
    read: (job) => job.misfirePolicy,
    write: (text) => text as JobInput['misfirePolicy'],
  },
  {
    name: 'startsAt',
    label: 'Starts at',
    section: 'Which slots fire',
    input: { kind: 'text', placeholder: '2026-01-01T00:00:00Z' },
    hint: 'No slot fires before (ISO instant; empty: none)',
    initial: '',
    read: (job) => job.startsAt ?? '',
    write: optionalText,
  },
  {
    name: 'endsAt',
    label: 'Ends at',
    section: 'Which slots fire',
    input: { kind: 'text' },
    hint: 'No slot fires after (ISO instant; empty: none)',
    initial: '',
    read: (job) => job.endsAt ?? '',
    write: optionalText,
  },
  {
    name: 'jitterSeconds',
    label: 'Jitter (seconds)',
    section: 'Which slots fire',
    input: { kind: 'integer' },
    hint: 'Each run is due 0 to N seconds after its slot (0 to 3600)',
    initial: '0',
    read: (job) => String(job.jitterSeconds),
    write: integer,
  },
  {
    name: 'workerSelector',
    label: 'Worker selector',
    section: 'Where it runs',
    input: { kind: 'text' },
    hint: 'Labels a worker must have, for example region=eu, gpu=true; empty: any worker',
    initial: '',
    read: (job) => labelsText(job.workerSelector),
    write: selectorOf,
  },
  {
    name: 'runOn',
    label: 'Run on',
    section: 'Where it runs',
    input: {
      kind: 'choice',
      options: [
        ['one', 'a run on any matching worker'],
        ['all', 'a run on every live matching worker'],
      ],
    },
    initial: 'one',
    read: (job) => job.runOn,
    write: (text) => text as JobInput['runOn'],
  },
  {
    name: 'maxConcurrent',
    label: 'Max concurrent',
    section: 'Where it runs',
    input: { kind: 'text' },
    hint: 'Runs of this job RUNNING at once across all workers; empty: no limit',
    initial: '',
    read: (job) => (job.maxConcurrent === null ? '' : String(job.maxConcurrent)),
    write: optionalInteger,
  },
  {
    name: 'concurrencyGroup',
    label: 'Concurrency group',
    section: 'Where it runs',
    input: { kind: 'text' },
    hint: 'A group whose limit its jobs share; empty: none. Admins add groups and change their limits on',
    see: { href: '/concurrency-groups', title: 'Concurrency groups' },
    initial: '',
    read: (job) => job.concurrencyGroup ?? '',
    write: optionalText,
  },
  {
    name: 'priority',
    label: 'Priority',
    section: 'Where it runs',
    input: { kind: 'text' },
    hint: 'From -100 to 100: among due runs, higher first, then the oldest',
    initial: '0',
    read: (job) => String(job.priority),
    write: integer,
  },
  {
    name: 'triggers',
    label: 'Runs after',
    section: 'Chains and parameters',
    input: { kind: 'lines', rows: 2 },
    hint: 'One a line: job name, or job name: SUCCEEDED, FAILED, CANCELLED',
    initial: '',
    read: (job) => triggersText(job.triggers),
    write: triggersOf,
  },
  {
    name: 'parameters',
    label: 'Parameters',
    section: 'Chains and parameters',
    input: {
      kind: 'rows',
      item: 'parameter',
      columns: [
        { key: 'name', label: 'Name', input: 'code' },
        { key: 'default', label: 'Default', input: 'text', optional: true },
        { key: 'required', label: 'Required', input: 'checkbox' },
        { key: 'description', label: 'Description', input: 'text', optional: true },
        { key: 'pattern', label: 'Pattern', input: 'code', optional: true },
      ],
    },
    hint: 'The command sees each as ORBIT_PARAM_<NAME>; a run without a value takes the default; a value must match the pattern (RE2), if any',
    initial: '[]',
    read: (job) => JSON.stringify(job.parameters, null, 2),
    write: (text) => JSON.parse(text) as JobInput['parameters'],
  },
  {
    name: 'alerts',
    label: 'Alerts',
    section: 'Alerts',
    input: { kind: 'lines', rows: 2 },
    hint: 'One rule a line: channel: failed, recovered, late, long_running, missed, … (a channel alone: failed)',
    initial: '',
    read: (job) => alertsText(job.alerts),
    write: alertsOf,
  },
  {
    name: 'lateAfterSeconds',
    label: 'Late after (seconds)',
    section: 'Alerts',
    input: { kind: 'integer' },
    hint: 'A slot with no started run this long after its time is late; empty: not watched',
    initial: '',
    read: (job) => (job.lateAfterSeconds === null ? '' : String(job.lateAfterSeconds)),
    write: optionalInteger,
  },
  {
    name: 'maxDurationSeconds',
    label: 'Long-running after (seconds)',
    section: 'Alerts',
    input: { kind: 'integer' },
    hint: 'A run still running this long is long-running (it runs on); empty: no limit',
    initial: '',
    read: (job) => (job.maxDurationSeconds === null ? '' : String(job.maxDurationSeconds)),
    write: optionalInteger,
  },
] as const satisfies readonly JobField[];

export type FieldName = (typeof JOB_FIELDS)[number]['name'];
export type Values = Record<FieldName, string>;

export const NEW_JOB = Object.fromEntries(JOB_FIELDS.map((field) => [field.name, field.initial])) as Values;

/** The settings of a job but the ones named, each with its label and its text, where it differs from a new job's. */
export function settingsBesides(job: Job, drawn: ReadonlySet<FieldName>): { label: string; text: string }[] {
  return JOB_FIELDS.filter((field) => !drawn.has(field.name) && field.read(job) !== field.initial).map((field) => ({
    label: field.label,
    text: field.read(job),
  }));
}

export function valuesOf(job: Job): Values {
  return Object.fromEntries(JOB_FIELDS.map((field) => [field.name, field.read(job)])) as Values;
}

export function bodyOf(values: Values): JobInput {
  // a field left to its default (team: undefined) is no key at all, as the API's schema wants
  const written = JOB_FIELDS.flatMap((field) =>
    'write' in field ? [[field.name, field.write(values[field.name], values)] as const] : [],
  ).filter(([, value]) => value !== undefined);
  // each value has the type of its key (ApiField), and name, command and cronExpression have entries
  return Object.fromEntries(written) as unknown as JobInput;
}

/**
 * Each mistake of a refused save (the browser's or the API's) beside the field its `field` names,
 * every one of them; the rest, such as a mistake about no field of the form, apart.
 */
export function fieldErrors(mistakes: readonly Mistake[]): FieldErrors {
  const fields: FieldErrors['fields'] = {};
  const rest: string[] = [];
  for (const { field, message } of mistakes) {
    const at = shownAt(field);
    if (at === undefined) rest.push(message);
    else if (!fields[at]?.includes(message)) fields[at] = [...(fields[at] ?? []), message];
  }
  return { fields, rest };
}

/**
 * The API refused a body over its size limit (413) before reading it: the field that takes the
 * most of the body is the one that made it so.
 */
export function tooLarge(body: JobInput, message: string): Mistake {
  const encoder = new TextEncoder();
  const [field, bytes] = Object.entries(body)
    .map(([key, value]) => [key, encoder.encode(JSON.stringify(value)).length] as const)
    .reduce((largest, entry) => (entry[1] > largest[1] ? entry : largest));
  return { field, message: `${message}; ${field} is ${(bytes / 1024).toFixed(1)} KiB of it` };
}

/**
 * The errors but those shown where a change was made: at the field and at the one `cell` of its
 * rows that changed, or, without a cell, at the field and every cell of its rows (a row came or
 * went, so the rows after it moved).
 */
export function withoutErrorsAt(errors: FieldErrors, name: FieldName, cell?: string): FieldErrors {
  const changed = (at: string) => (cell === undefined ? isAt(at, name) : at === name || at === cell);
  const kept = Object.entries(errors.fields).filter(([at]) => !changed(at));
  return kept.length === Object.keys(errors.fields).length ? errors : { ...errors, fields: Object.fromEntries(kept) };
}

/** Whether the field, or a cell of its rows, shows an error. */
export function hasErrors(errors: FieldErrors, name: FieldName): boolean {
  return Object.keys(errors.fields).some((at) => isAt(at, name));
}

/** `at` is the field or a cell of its rows. */
function isAt(at: string, name: FieldName): boolean {
  return at === name || at.startsWith(`${name}[`);
}

export interface FieldErrors {
  /** The messages shown at each field, by its name, or at a cell of its rows, by its path (`parameters[0].name`). */
  fields: Partial<Record<string, readonly string[]>>;
  rest: string[];
}

/** Where the mistakes about `path` show: the cell of rows it names, or the field it starts with. */
function shownAt(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  // class-validator's `parameters.0.name` is the domain's `parameters[0].name`
  const normal = path.replace(/\.(\d+)(?=[.[]|$)/g, '[$1]');
  const field = JOB_FIELDS.find((candidate) => 'write' in candidate && candidate.name === headOf(normal));
  if (!field) return undefined;
  const column = /^\w+\[\d+\]\.(\w+)$/.exec(normal)?.[1];
  const isCell = field.input.kind === 'rows' && field.input.columns.some(({ key }) => key === column);
  return isCell ? normal : field.name;
}

/** `triggers` of `triggers[0].after` or of `alerts.0.channel`'s `alerts`. */
function headOf(path: string): string {
  return /^[^.[]*/.exec(path)![0];
}
