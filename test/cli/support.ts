import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileInto } from '../support/compile.js';

/** The command line (src/cli/, tsconfig.cli.json), compiled for the tests: answers the entry point. */
export async function buildCli(): Promise<string> {
  const out = await compileInto('tsconfig.cli.json', 'orbit-cli-');
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
  return join(out, 'src/cli/orbit.js');
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ReturnType<typeof spawn>;
  /** What it printed so far. */
  stdout(): string;
  stderr(): string;
  done: Promise<CliResult>;
}

/** Every argument list the CLI was started with in this test file, for the coverage check. */
export const ranArgs: string[][] = [];

/**
 * `orbit <args>` as a child process, with its own config folder and no colours; `input`, if
 * given, is its stdin (else it has none).
 */
export function startCli(
  entry: string,
  args: readonly string[],
  env: Record<string, string>,
  input?: string,
): RunningCli {
  ranArgs.push([...args]);
  const child = spawn(process.execPath, [entry, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: env.HOME ?? tmpdir(), NO_COLOR: '1', ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}
