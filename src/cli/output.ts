import Table from 'cli-table3';
import pc from 'picocolors';

export { pc };

/** How a command prints: a table for people, the API's JSON for scripts. */
export interface Output {
  json: boolean;
}

/** The API's answer as it is, one JSON document on stdout: what scripts parse. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

type Row = object;

/** Rows as a borderless table under bold headers; `columns` picks and orders the fields. */
export function printTable(rows: readonly Row[], columns: readonly string[]): void {
  if (rows.length === 0) {
    process.stdout.write(`${pc.dim('(none)')}\n`);
    return;
  }
  const table = new Table({
    head: columns.map((column) => pc.bold(column)),
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
    chars: BORDERLESS,
  });
  for (const row of rows) table.push(columns.map((column) => cell((row as Record<string, unknown>)[column])));
  process.stdout.write(`${table.toString()}\n`);
}

/** One object as two columns, field and value. */
export function printRecord(record: Row): void {
  const table = new Table({
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
    chars: BORDERLESS,
  });
  for (const [field, value] of Object.entries(record)) table.push([pc.bold(field), cell(value)]);
  process.stdout.write(`${table.toString()}\n`);
}

/** A status in the colour a person reads it by. */
export function status(value: string): string {
  const paint = { SUCCEEDED: pc.green, FAILED: pc.red, CANCELLED: pc.yellow, RUNNING: pc.cyan }[value];
  return paint ? paint(value) : value;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return pc.dim('-');
  if (typeof value === 'string') return /^[A-Z]+$/.test(value) ? status(value) : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '',
};
