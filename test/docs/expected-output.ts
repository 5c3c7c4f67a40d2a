import { ExpectedOutput, WILDCARD } from './doc-blocks.js';

// eslint-disable-next-line no-control-regex -- colour codes, should a command print them anyway
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * How the output a block printed differs from what its docs show, or undefined when it matches.
 * `text`: line by line (trailing spaces and blank lines at either end ignored), `…` standing for
 * any text within a line and a line of `…` alone for any number of lines. `json`: the output
 * parsed as one document; an object matches when every key shown matches (keys not shown are
 * not checked), an array element by element (a last element `"…"`: any more elements), a
 * string `"…"` any value and a string with `…` in it as in text.
 */
export function outputMismatch(expected: ExpectedOutput, printed: string): string | undefined {
  const actual = printed.replace(ANSI, '');
  return expected.kind === 'json' ? jsonMismatch(expected.text, actual) : textMismatch(expected.text, actual);
}

function textMismatch(expected: string, actual: string): string | undefined {
  const want = trimmedLines(expected);
  const got = trimmedLines(actual);
  if (linesMatch(want, got)) return undefined;
  const wild = want.indexOf(WILDCARD);
  const first = want.findIndex((line, index) => index === wild || !patternOf(line).test(got[index] ?? ''));
  const where =
    first >= 0 && first !== wild
      ? `line ${first + 1} differs:\n  shown:   ${want[first]}\n  printed: ${got[first] ?? '(nothing)'}\n`
      : wild < 0
        ? `it printed ${got.length} lines, the docs show ${want.length}\n`
        : '';
  return `${where}it printed:\n${indent(got.join('\n'))}`;
}

function trimmedLines(text: string): string[] {
  const lines = text.split('\n').map((line) => line.trimEnd());
  while (lines[0] === '') lines.shift();
  while (lines.at(-1) === '') lines.pop();
  return lines;
}

function linesMatch(want: string[], got: string[]): boolean {
  if (want.length === 0) return got.length === 0;
  const [first, ...rest] = want as [string, ...string[]];
  if (first === WILDCARD) return got.some((_, skip) => linesMatch(rest, got.slice(skip))) || linesMatch(rest, []);
  return got.length > 0 && patternOf(first).test(got[0]!) && linesMatch(rest, got.slice(1));
}

function patternOf(shown: string): RegExp {
  const parts = shown.split(WILDCARD).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`, 's');
}

function jsonMismatch(expected: string, actual: string): string | undefined {
  let want: unknown;
  try {
    want = JSON.parse(expected);
  } catch (error) {
    return `the json block is not JSON (${(error as Error).message}): fix the block`;
  }
  let got: unknown;
  try {
    got = JSON.parse(actual);
  } catch {
    return `it printed what is not one JSON document (a json block shows the answer of one command):\n${indent(actual)}`;
  }
  const difference = valueMismatch(want, got, '$');
  return difference && `${difference}\nit printed:\n${indent(JSON.stringify(got, null, 2))}`;
}

function valueMismatch(want: unknown, got: unknown, path: string): string | undefined {
  if (want === WILDCARD) return undefined;
  const differs = () => `at ${path}: shown ${JSON.stringify(want)}, printed ${JSON.stringify(got) ?? 'nothing'}`;
  if (typeof want === 'string') {
    return typeof got === 'string' && patternOf(want).test(got) ? undefined : differs();
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return differs();
    const open = want.at(-1) === WILDCARD;
    const shown = open ? want.slice(0, -1) : want;
    if (open ? got.length < shown.length : got.length !== shown.length) {
      return `at ${path}: shown ${open ? 'at least ' : ''}${shown.length} elements, printed ${got.length}`;
    }
    return shown.map((item, index) => valueMismatch(item, got[index], `${path}[${index}]`)).find(Boolean);
  }
  if (want !== null && typeof want === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return differs();
    return Object.entries(want)
      .map(([key, value]) =>
        key in got
          ? valueMismatch(value, (got as Record<string, unknown>)[key], `${path}.${key}`)
          : `${path}.${key} is missing`,
      )
      .find(Boolean);
  }
  return want === got ? undefined : differs();
}

export function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
