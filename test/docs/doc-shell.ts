import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShellBlock } from './doc-blocks.js';
import { indent, outputMismatch } from './expected-output.js';

export interface DocShell {
  cwd: string;
  env: Record<string, string>;
  /** How long one block may take (four times as long when it runs an npm script: they build first). */
  blockTimeoutMs: number;
  /** The reader's edits the runner makes to commands and to the output they show (the address). */
  adapt(text: string): string;
}

const MARK_HOW =
  'or, if it is not meant to be run, put `<!-- illustrative: <why> -->` on its own line before its fence';

/**
 * Runs the blocks of one file that are not illustrative, in order, in one bash (so what one
 * block sets, the next one sees), as a reader pastes them into a terminal, but stricter: the
 * first command that fails (`set -euo pipefail`) stops the file. Answers what went wrong, each
 * naming the file's line, the command and what to fix: a failure, a block that did not end,
 * output that differs from what the docs show.
 */
export async function runDocBlocks(file: string, blocks: ShellBlock[], shell: DocShell): Promise<string[]> {
  const runnable = blocks.filter((block) => !block.illustrative);
  if (runnable.length === 0) return [];
  const state = mkdtempSync(join(tmpdir(), 'orbit-doc-shell-'));
  const mark = `@@orbit-doc-${randomUUID()}@@`;
  try {
    runnable.forEach((block, index) => writeFileSync(scriptOf(state, index), `${shell.adapt(block.script)}\n`));
    writeFileSync(join(state, 'driver.sh'), driver(state, mark, runnable.length));
    const run = await runDriver(
      state,
      mark,
      runnable.map((block) => limitOf(block, shell)),
      shell,
    );
    const where = (text: string) => readable(text, state, file, runnable);
    const failures: string[] = [];
    runnable.forEach((block, index) => {
      const output = run.outputs[index];
      if (output === undefined) return;
      const mismatch =
        block.expected && outputMismatch({ ...block.expected, text: shell.adapt(block.expected.text) }, output);
      if (mismatch) {
        failures.push(
          `${file}:${block.expected!.line}: the output of the block at line ${block.line} no longer matches what ` +
            `the docs show here; ${where(mismatch)}\nUpdate the output shown (\`…\` stands for ids and times), or fix what changed.`,
        );
      }
    });
    const stopped = run.outputs.length < runnable.length ? run.outputs.length : -1;
    if (stopped >= 0)
      failures.push(stopReport(file, runnable[stopped]!, run, state, where, limitOf(runnable[stopped]!, shell)));
    return failures;
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

const scriptOf = (state: string, index: number) => join(state, `block-${index}.sh`);

/** `npm start` and `npm run orbit` build the checkout before they run, which takes long on a loaded machine. */
const limitOf = (block: ShellBlock, shell: DocShell) =>
  /\bnpm (start|run)\b/.test(block.script) ? 4 * shell.blockTimeoutMs : shell.blockTimeoutMs;

/**
 * The traps record the command about to run (DEBUG) and the one that failed (ERR), with the
 * block's script and its line there, so that a failure names the docs' line.
 */
function driver(state: string, mark: string, count: number): string {
  const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const lines = [
    'exec 2>&1',
    'shopt -s expand_aliases',
    'set -euo pipefail',
    `__orbit_doc_state=${quoted(state)}`,
    `trap 'printf "%s\\t%s\\t%s\\n" "\${BASH_SOURCE[0]:-}" "$LINENO" "$BASH_COMMAND" > "$__orbit_doc_state/current"' DEBUG`,
    `trap 'printf "%s\\t%s\\t%s\\t%s\\n" "$?" "\${BASH_SOURCE[0]:-}" "$LINENO" "$BASH_COMMAND" >> "$__orbit_doc_state/failed"' ERR`,
    'set -ET',
  ];
  for (let index = 0; index < count; index++) {
    lines.push(
      `printf '%s\\n' ${quoted(`${mark} begin ${index}`)}`,
      `source ${quoted(scriptOf(state, index))}`,
      `printf '\\n%s\\n' ${quoted(`${mark} end ${index}`)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

interface DriverRun {
  /** The output of each block that ended. */
  outputs: string[];
  /** What the block that did not end printed. */
  partial: string;
  code: number | null;
  timedOut: boolean;
}

async function runDriver(state: string, mark: string, limits: number[], shell: DocShell): Promise<DriverRun> {
  const count = limits.length;
  const child = spawn('bash', ['--noprofile', '--norc', join(state, 'driver.sh')], {
    cwd: shell.cwd,
    env: shell.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // a process group of its own: whatever a block leaves running goes with it
  });
  let printed = '';
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  let begun = -1;
  const watch = () => {
    const latest = [...printed.matchAll(new RegExp(`${mark} begin (\\d+)\\n`, 'g'))].at(-1);
    const index = latest ? Number(latest[1]) : -1;
    if (index === begun) return;
    begun = index;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, limits[Math.max(index, 0)]);
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    printed += chunk;
    watch();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (printed += chunk));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  clearTimeout(timer);
  // what a block left in the background would hold the output open: it ends with the shell
  killGroup(child.pid);
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise((resolve) => (grace = setTimeout(resolve, 5_000)))]);
  clearTimeout(grace);
  const outputs: string[] = [];
  let partial = '';
  for (let index = 0; index < count; index++) {
    const begin = printed.indexOf(`${mark} begin ${index}\n`);
    if (begin < 0) break;
    const from = begin + `${mark} begin ${index}\n`.length;
    const end = printed.indexOf(`\n${mark} end ${index}\n`, from);
    if (end < 0) {
      partial = printed.slice(from);
      break;
    }
    outputs.push(printed.slice(from, end));
  }
  return { outputs, partial, code, timedOut };
}

/** Ends the group and whatever a block started in the background, if any is left. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** Why the file stopped in `block`: a command that failed, a block that did not end, or exited the shell. */
function stopReport(
  file: string,
  block: ShellBlock,
  run: DriverRun,
  state: string,
  where: (text: string) => string,
  timeoutMs: number,
): string {
  const printed = run.partial.trim() === '' ? '' : `\nWhat the block printed:\n${indent(where(run.partial.trimEnd()))}`;
  const at = `the block at ${file}:${block.line}`;
  if (run.timedOut) {
    const current = lastRecord(join(state, 'current'));
    const command = current ? ` while running ${where(locate(current.source, current.line, current.command))}` : '';
    return (
      `${at} did not finish within ${timeoutMs / 1000} s${command}.${printed}\n` +
      'A command that runs until it is stopped (a server, a stream, a follower) cannot run as shown: bound it, ' +
      MARK_HOW
    );
  }
  const failed = lastRecord(join(state, 'failed'));
  const current = lastRecord(join(state, 'current'));
  const culprit = failed ?? current;
  const command = culprit ? where(locate(culprit.source, culprit.line, culprit.command)) : `a command of ${at}`;
  const status = failed?.status ?? String(run.code);
  const curl =
    /^\S*curl\b/.test(culprit?.command ?? '') && status === '22' ? ' (curl: the answer was an HTTP error)' : '';
  return (
    `${command} failed with exit code ${status}${curl}, in ${at}.${printed}\n` +
    `Fix the command, or what it calls, so that it runs as shown, ${MARK_HOW}`
  );
}

interface TrapRecord {
  status?: string;
  source: string;
  line: number;
  command: string;
}

function lastRecord(path: string): TrapRecord | undefined {
  if (!existsSync(path)) return undefined;
  const last = readFileSync(path, 'utf8').trimEnd().split('\n').at(-1);
  if (!last) return undefined;
  const fields = last.split('\t');
  const [status, source, line, ...command] = fields.length >= 4 ? fields : [undefined, ...fields];
  return { status, source: source ?? '', line: Number(line), command: command.join('\t') };
}

/** `<script>: line N` followed by the command, for `readable` to turn into the docs' line. */
function locate(source: string, line: number, command: string): string {
  return `${source}: line ${line}: \`${command}\``;
}

/**
 * Names the docs' line instead of the block's script: bash reports a multi-line command at
 * the line where it failed, so the line shown is the first of the command (the nearest line
 * up that holds its first word).
 */
function readable(text: string, state: string, file: string, blocks: ShellBlock[]): string {
  return text.replace(
    new RegExp(
      `${state.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/block-(\\d+)\\.sh(?:: line (\\d+))?(: \`([^\`]*)\`)?`,
      'g',
    ),
    (_match, index: string, line: string | undefined, _quoted, command: string | undefined) => {
      const block = blocks[Number(index)]!;
      if (line === undefined) return `the block at ${file}:${block.line}`;
      const lines = block.script.split('\n');
      let at = Number(line);
      const first = command?.split(/\s/)[0];
      if (first) {
        for (let up = at; up >= 1; up--) {
          if (lines[up - 1]?.includes(first)) {
            at = up;
            break;
          }
        }
      }
      return `${file}:${block.line + at}${command === undefined ? '' : `: \`${command}\``}`;
    },
  );
}
