import Table from 'cli-table3';
import pc from 'picocolors';

export { pc };

/** The API's answer as it is, one JSON document on stdout: what scripts parse. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A column of a table: its header, and what each row shows under it. */
export type Column<R> = readonly [header: string, cell: (row: R) => unknown];

/** Rows as a borderless table under bold headers. */
export function printTable<R>(rows: readonly R[], columns: readonly Column<R>[]): void {
  if (rows.length === 0) {
    process.stdout.write(`${pc.dim('(none)')}\n`);
    return;
  }
  const table = new Table({ head: columns.map(([header]) => pc.bold(header)), style: STYLE, chars: BORDERLESS });
  for (const row of rows) table.push(columns.map(([, value]) => cell(value(row))));
  write(table.toString());
}

/** One object as two columns, field and value. */
export function printRecord(record: object): void {
  const table = new Table({ style: STYLE, chars: BORDERLESS });
  for (const [field, value] of Object.entries(record)) table.push([pc.bold(field), cell(value)]);
  write(table.toString());
}

/** The table's lines without the padding cli-table3 leaves after the last column. */
function write(table: string): void {
  process.stdout.write(`${table.replace(/[ \t]+$/gm, '')}\n`);
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

const STYLE = { head: [], border: [], 'padding-left': 0, 'padding-right': 2 };

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
