/**
 * What the docs tell a reader to type is run: every fenced block tagged bash, sh, shell or
 * console in README.md and docs/**.md, against a real Orbit, as docs/contributing.md
 * ("Docs that run") describes for writers. In short:
 *
 * - Each file gets a fresh Orbit (`node dist/src/main.js`, what `npm start` runs, built by
 *   `npm run build` in a copy of the checkout, on a database of its own) and one bash, in a
 *   folder of its own that links to that checkout, that runs its blocks in order: what a block
 *   sets, the next one sees. The shell has what a reader has after the README's "Start": TOKEN (the token that
 *   Orbit printed at its first start), ORBIT_URL, ORBIT_TOKEN, AUTH (`Authorization: Bearer
 *   $TOKEN`), and `orbit` on the PATH (this build's CLI); and DATABASE_URL, that Orbit's
 *   database, where a reader's embedded one is found in ./.orbit.
 * - The reader's one edit the runner makes: `localhost:3000` and `127.0.0.1:3000` become the
 *   test Orbit's address, in the commands and in the output shown.
 * - Stricter than a terminal: `set -euo pipefail`, and curl fails on an HTTP status of 400 or
 *   more (unless the command says how to fail, `-f`, or prints the status itself, `-w`).
 * - A block is skipped only when `<!-- illustrative: <why> -->` comes right before its fence
 *   (blank lines between are fine: Prettier puts one there). Placeholders such as `<job id>` or
 *   `…` in a command are refused: a block runs as shown or is marked.
 * - Output is checked where the docs show it: a `text` or `json` block right after a shell
 *   block (a console block's own output lines) must match what the whole block printed, stdout
 *   and stderr as a terminal shows them, with `…` standing for ids and times (see
 *   expected-output.ts for the rules).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';
import { isAlive } from '../support/wait.js';
import { readDocBlocks } from './doc-blocks.js';
import { runDocBlocks } from './doc-shell.js';
import { buildCheckout, Checkout, ReaderOrbit, startReaderOrbit } from './reader-orbit.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BLOCK_TIMEOUT_MS = 30_000;

/** README.md and every Markdown file under docs/ that holds a shell block or a marker. */
function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md'))
    .map((path) => join('docs', path))
    .sort();
  return ['README.md', ...docs].filter((file) => {
    const { blocks, problems } = readDocBlocks(file, readFileSync(join(ROOT, file), 'utf8'));
    return blocks.length > 0 || problems.length > 0;
  });
}

/** The docs say Orbit listens on port 3000; the test's Orbit listens where it could. */
const readerAddress = (url: string) => (text: string) =>
  text.replace(/\b(?:localhost|127\.0\.0\.1):3000\b/g, url.replace(/^http:\/\//, ''));

interface Reader {
  orbit: ReaderOrbit;
  dir: string;
  db: TestDatabase;
  close(): Promise<void>;
}

async function startReader(checkout: Checkout): Promise<Reader> {
  const dir = checkout.copy();
  const db = await createTestDatabase();
  const orbit = await startReaderOrbit(checkout, dir, db.url).catch(async (error: unknown) => {
    await db.drop();
    throw error;
  });
  return {
    orbit,
    dir,
    db,
    close: async () => {
      await orbit.stop();
      await db.drop();
    },
  };
}

/** What is wrong with the file's blocks: first what keeps them from running, else what running them showed. */
async function runAsReader(reader: Reader, file: string, markdown: string, blockTimeoutMs = BLOCK_TIMEOUT_MS) {
  const { blocks, problems } = readDocBlocks(file, markdown);
  if (problems.length > 0) return problems;
  return runDocBlocks(file, blocks, {
    cwd: reader.dir,
    env: reader.orbit.env,
    blockTimeoutMs,
    adapt: readerAddress(reader.orbit.url),
  });
}

/** The failures, and the errors the Orbit logged meanwhile (a 500 says why there). */
function report(failures: string[], reader?: Reader): void {
  if (failures.length === 0) return;
  const warnings = (reader?.orbit.log() ?? '').split('\n').filter((line) => /"level":(50|60)\b/.test(line));
  const log = warnings.length > 0 ? `\n\nWhat the Orbit logged as errors:\n${warnings.slice(-15).join('\n')}` : '';
  throw new Error(`${failures.join('\n\n')}${log}`);
}

let checkout: Checkout;

beforeAll(async () => {
  checkout = await buildCheckout();
}, 180_000);

afterAll(() => checkout?.remove());

describe('the shell blocks of the docs, run as a reader runs them', () => {
  it.each(docFiles())(
    '%s runs as shown',
    async (file) => {
      const markdown = readFileSync(join(ROOT, file), 'utf8');
      const { blocks, problems } = readDocBlocks(file, markdown);
      report(problems);
      if (blocks.every((block) => block.illustrative)) return;
      const reader = await startReader(checkout);
      try {
        report(await runAsReader(reader, file, markdown), reader);
      } finally {
        await reader.close();
      }
    },
    300_000,
  );
});

describe('the doc runner', () => {
  let reader: Reader;
  const planted = (markdown: string, blockTimeoutMs?: number) =>
    runAsReader(reader, 'planted.md', markdown, blockTimeoutMs);
  const fence = (tag: string, ...lines: string[]) => ['```' + tag, ...lines, '```'].join('\n');

  beforeAll(async () => {
    reader = await startReader(checkout);
  }, 120_000);

  afterAll(() => reader?.close());

  it('runs the blocks in one shell, checks their output, reads the address as the reader would and skips a marked block', async () => {
    const failures = await planted(
      [
        'Intro.',
        fence('bash', 'X=41'),
        fence('sh', 'echo "answer $((X + 1)) at $(date +%s)"'),
        fence('text', 'answer 42 at …'),
        fence('shell', 'curl -s localhost:3000/jobs -H "$AUTH"'),
        fence('json', '{ "items": [], "nextCursor": null }'),
        fence('console', '$ orbit jobs list --json', '…'),
        '<!-- illustrative: it fails on purpose -->',
        '',
        fence('bash', 'false'),
      ].join('\n\n'),
    );

    expect(failures).toEqual([]);
  });

  it('names the line and the command that failed, and stops there', async () => {
    const failures = await planted(['Intro.', '', fence('bash', 'echo one', 'false', 'echo never')].join('\n'));

    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain('planted.md:5: `false` failed with exit code 1, in the block at planted.md:3.');
    expect(failures[0]).toContain('    one');
    expect(failures[0]).not.toContain('never');
  });

  it('fails a curl that is answered with an HTTP error, naming the command of several lines by its first', async () => {
    const failures = await planted(
      fence('bash', 'curl -s -H "$AUTH" \\', '  "$ORBIT_URL/jobs/00000000-0000-4000-8000-000000000000"'),
    );

    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(
      /^planted\.md:2: `curl -s -H "\$AUTH" "\$ORBIT_URL\/jobs\/0{8}-.*` failed with exit code 22 \(curl: the answer was an HTTP error\)/,
    );
    expect(failures[0]).toContain('"statusCode":404');
  });

  it('names an unset variable at its line', async () => {
    const failures = await planted(fence('bash', 'echo start', 'echo "$NOT_SET_ANYWHERE"'));

    expect(failures[0]).toContain('planted.md:3: NOT_SET_ANYWHERE: unbound variable');
  });

  it('fails output that no longer matches, naming the line shown and the line printed', async () => {
    const failures = await planted(
      [
        fence('bash', 'echo hello'),
        fence('text', 'goodbye'),
        fence('bash', 'curl -s "$ORBIT_URL/jobs" -H "$AUTH"'),
        fence('json', '{ "nextCursor": "x" }'),
      ].join('\n\n'),
    );

    expect(failures).toHaveLength(2);
    expect(failures[0]).toContain('planted.md:5: the output of the block at line 1 no longer matches');
    expect(failures[0]).toContain('  shown:   goodbye\n  printed: hello');
    expect(failures[1]).toContain('planted.md:13: the output of the block at line 9 no longer matches');
    expect(failures[1]).toContain('at $.nextCursor: shown "x", printed null');
  });

  it('refuses a marker without a reason, a marker that marks nothing and a placeholder, before running anything', async () => {
    const failures = await planted(
      [
        '<!-- illustrative -->',
        fence('bash', 'true'),
        '<!-- illustrative: a marker with nothing after it -->',
        'Prose.',
        fence('bash', 'curl -s "$ORBIT_URL/jobs/<job id>" -H "$AUTH"; echo orbit_…'),
      ].join('\n\n'),
    );

    expect(failures).toEqual([
      'planted.md:1: the illustrative marker gives no reason: put `<!-- illustrative: <why it is not run> -->` on its own line before the fence',
      expect.stringMatching(
        /^planted\.md:11: the block holds what a reader must fill in.*\n {2}planted\.md:12: `<job id>`, `…`\n/,
      ),
      'planted.md:7: an illustrative marker must be followed by the shell block it marks (blank lines between are fine)',
    ]);
  });

  it('ends what a block left running in the background once the file is done, without waiting for it', async () => {
    const started = Date.now();
    const failures = await planted(fence('bash', 'sleep 300 & echo $! > background.pid'));

    expect(failures).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(isAlive(Number(readFileSync(join(reader.dir, 'background.pid'), 'utf8')))).toBe(false);
  });

  it('stops a block that does not end, and what it started with it', async () => {
    const failures = await planted(fence('bash', 'sleep 300 & echo $! > sleeper.pid', 'sleep 60'), 1_000);

    expect(failures[0]).toContain(
      'the block at planted.md:1 did not finish within 1 s while running planted.md:3: `sleep 60`',
    );
    const sleeper = Number(readFileSync(join(reader.dir, 'sleeper.pid'), 'utf8'));
    expect(isAlive(sleeper)).toBe(false);
  });
});
