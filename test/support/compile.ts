import { execFile } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * Compiles a TypeScript project of the repository as `npm run build` does, into a folder of its
 * own beside the project's packages, so that a test runs what the bin runs, as a child process,
 * and never an earlier build in dist/. Answers the folder.
 */
export async function compileInto(tsconfig: string, prefix: string): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), prefix));
  await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, tsconfig), '--outDir', out],
    { cwd: ROOT },
  );
  symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'));
  return out;
}
