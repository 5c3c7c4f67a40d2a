/** The run's table on stdout and its JSON in bench/results/latest.json. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Row, ROOT } from './support.js';

const COLUMNS: { key: keyof Row; title: string; max: number }[] = [
  { key: 'scenario', title: 'scenario', max: 10 },
  { key: 'measure', title: 'measure', max: 90 },
  { key: 'figure', title: 'figure', max: 110 },
  { key: 'target', title: 'target / reference', max: 60 },
  { key: 'ratio', title: 'ratio', max: 6 },
  { key: 'verdict', title: 'met', max: 7 },
];

/** A plain-text table; cells longer than their column wrap onto continuation lines. */
export function formatTable(rows: Row[]): string {
  const widths = COLUMNS.map((c) =>
    Math.min(c.max, Math.max(c.title.length, ...rows.map((r) => String(r[c.key]).length))),
  );
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' │ ');
  const out = [line(COLUMNS.map((c) => c.title)), widths.map((w) => '─'.repeat(w)).join('─┼─')];
  for (const row of rows) {
    const wrapped = COLUMNS.map((c, i) => wrap(String(row[c.key]), widths[i]!));
    const height = Math.max(...wrapped.map((w) => w.length));
    for (let l = 0; l < height; l++) out.push(line(wrapped.map((w) => w[l] ?? '')));
  }
  return out.join('\n');
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = '';
    }
    current = current ? `${current} ${word}` : word;
    while (current.length > width) {
      lines.push(current.slice(0, width));
      current = current.slice(width);
    }
  }
  lines.push(current);
  return lines;
}

export function writeResults(result: unknown): string {
  const dir = join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'latest.json');
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}
