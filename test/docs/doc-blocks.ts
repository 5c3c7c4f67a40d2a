/** Fences whose content is a shell session a reader types. */
export const SHELL_TAGS = ['bash', 'sh', 'shell', 'console'];
/** Fences that, right after a shell block, show what it prints. */
export const OUTPUT_TAGS = ['text', 'json'];
/** In expected output: any text within a line; a line of it alone, any number of lines. */
export const WILDCARD = '…';

export interface ExpectedOutput {
  kind: 'text' | 'json';
  /** The line of its opening fence (a console block's own line). */
  line: number;
  text: string;
}

export interface ShellBlock {
  /** The line of its opening fence (1-based); the script's line n is the file's line `line + n`. */
  line: number;
  tag: string;
  /** One line per line of the block: a console block's prompts are dropped and its output lines left blank. */
  script: string;
  /** Why it is not run, when it is marked so. */
  illustrative?: string;
  expected?: ExpectedOutput;
}

export interface DocBlocks {
  blocks: ShellBlock[];
  /** What keeps the file from being run, each naming the line and what to do. */
  problems: string[];
}

interface Fence {
  tag: string;
  line: number;
  content: string[];
  /** The line after its closing fence. */
  end: number;
}

const OPENING = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;
const MARKER = /^\s*<!--\s*illustrative\b:?(.*?)-->\s*$/;
const MARKER_START = /<!--\s*illustrative\b/;
/** `<job id>`, `<seq>`: a reader's edit, not a command (a redirection is `<file` or `< file`). */
const PLACEHOLDER = /(?<![<\w])<[A-Za-z][\w -]*\w>/g;
const MARK_HOW = 'put `<!-- illustrative: <why it is not run> -->` on its own line before the fence';

/**
 * The shell blocks of a Markdown file, with their illustrative markers and expected output.
 * Only fences are read (CommonMark's rules for opening and closing them); prose is left alone.
 */
export function readDocBlocks(file: string, markdown: string): DocBlocks {
  const lines = markdown.split('\n');
  const problems: string[] = [];
  const fences = fencesOf(lines);
  const insideFence = new Set(fences.flatMap((f) => Array.from({ length: f.end - f.line }, (_, i) => f.line + i)));
  const markers = new Map<number, string>();
  lines.forEach((text, index) => {
    const line = index + 1;
    if (insideFence.has(line) || !MARKER_START.test(text)) return;
    const marker = MARKER.exec(text);
    if (!marker) problems.push(`${file}:${line}: an illustrative marker must be a line of its own: ${MARK_HOW}`);
    else markers.set(line, marker[1]!.trim());
  });

  const blocks: ShellBlock[] = [];
  fences.forEach((fence, index) => {
    const markerLine = lineBefore(lines, fence.line);
    const reason = markerLine === undefined ? undefined : markers.get(markerLine);
    const shell = SHELL_TAGS.includes(fence.tag);
    if (reason !== undefined) {
      markers.delete(markerLine!);
      if (!shell)
        problems.push(
          `${file}:${markerLine}: an illustrative marker before a \`${fence.tag}\` block, which is never run`,
        );
      else if (reason === '')
        problems.push(`${file}:${markerLine}: the illustrative marker gives no reason: ${MARK_HOW}`);
    }
    if (!shell) return;
    const block = shellBlock(fence, reason || undefined);
    const next = fences[index + 1];
    if (next && OUTPUT_TAGS.includes(next.tag) && lineBefore(lines, next.line) === fence.end - 1) {
      if (block.expected) {
        problems.push(`${file}:${next.line}: the console block at line ${fence.line} shows its output already`);
      } else {
        block.expected = { kind: next.tag as ExpectedOutput['kind'], line: next.line, text: next.content.join('\n') };
      }
    }
    if (!block.illustrative) problems.push(...runnable(file, block));
    blocks.push(block);
  });
  for (const line of markers.keys()) {
    problems.push(
      `${file}:${line}: an illustrative marker must be followed by the shell block it marks (blank lines between are fine)`,
    );
  }
  return { blocks, problems };
}

function fencesOf(lines: string[]): Fence[] {
  const fences: Fence[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = OPENING.exec(lines[index]!);
    if (!opening) continue;
    const [, indent, mark] = opening as unknown as [string, string, string, string];
    const closing = new RegExp(`^\\s*${mark[0] === '`' ? '`' : '~'}{${mark.length},}\\s*$`);
    const content: string[] = [];
    let next = index + 1;
    for (; next < lines.length && !closing.test(lines[next]!); next++) {
      content.push(lines[next]!.replace(new RegExp(`^ {0,${indent.length}}`), ''));
    }
    fences.push({ tag: opening[3]!.toLowerCase(), line: index + 1, content, end: next + 2 });
    index = next;
  }
  return fences;
}

/** The last non-blank line before `line` (1-based), if any. */
function lineBefore(lines: string[], line: number): number | undefined {
  for (let index = line - 2; index >= 0; index--) if (lines[index]!.trim() !== '') return index + 1;
  return undefined;
}

/**
 * A console block's commands are its `$ ` lines and the lines that continue them (after a
 * trailing backslash); its other lines are the output it shows.
 */
function shellBlock(fence: Fence, illustrative: string | undefined): ShellBlock {
  const base = { line: fence.line, tag: fence.tag, illustrative };
  if (fence.tag !== 'console') return { ...base, script: fence.content.join('\n') };
  const script: string[] = [];
  const output: string[] = [];
  let continued = false;
  for (const text of fence.content) {
    const command: string | undefined = continued ? text : /^\$ /.test(text) ? text.slice(2) : undefined;
    script.push(command ?? '');
    if (command === undefined) output.push(text);
    continued = command !== undefined && command.endsWith('\\');
  }
  const expected = output.some((text) => text.trim() !== '')
    ? { kind: 'text' as const, line: fence.line, text: output.join('\n') }
    : undefined;
  return { ...base, script: script.join('\n'), expected };
}

/** What a reader would have to edit before running the block: it cannot run as shown. */
function runnable(file: string, block: ShellBlock): string[] {
  const prompts: string[] = [];
  const holes: string[] = [];
  block.script.split('\n').forEach((text, index) => {
    const at = `${file}:${block.line + index + 1}`;
    if (block.tag !== 'console' && /^\s*\$ /.test(text)) prompts.push(at);
    const code = text.replace(/(^|\s)#.*$/, '');
    const found = [...(code.match(PLACEHOLDER) ?? []), ...(code.includes(WILDCARD) ? [WILDCARD] : [])];
    if (found.length > 0) holes.push(`  ${at}: ${found.map((hole) => `\`${hole}\``).join(', ')}`);
  });
  const problems: string[] = [];
  if (prompts.length > 0) {
    problems.push(
      `${prompts.join(', ')}: a prompt (\`$ \`) in a \`${block.tag}\` block: drop it, or tag the block \`console\``,
    );
  }
  if (holes.length > 0) {
    problems.push(
      `${file}:${block.line}: the block holds what a reader must fill in, so it cannot run as shown:\n` +
        `${holes.join('\n')}\n` +
        'Write commands that get the values (`JOB=$(curl … | node -pe …)`, a name the API takes, a variable set ' +
        `earlier in the file), or ${MARK_HOW}`,
    );
  }
  return problems;
}
