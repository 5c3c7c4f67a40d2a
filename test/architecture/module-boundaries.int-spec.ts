import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { checkGraph, MODULE_GRAPH, moduleBoundaries } from '../../eslint.module-graph.js';

/**
 * Lints a project of planted files (path → source) in a temporary folder with the module rule
 * alone, as `npm run lint` derives it from MODULE_GRAPH. Answers each file's messages.
 */
async function lintPlanted(files: Record<string, string>): Promise<Record<string, string[]>> {
  const root = await mkdtemp(join(tmpdir(), 'orbit-boundaries-'));
  try {
    for (const [path, source] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), source);
    }
    const eslint = new ESLint({
      cwd: root,
      overrideConfigFile: true,
      overrideConfig: [
        { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
        moduleBoundaries(MODULE_GRAPH, root),
      ],
    });
    const results = await eslint.lintFiles(['src/**/*.ts']);
    return Object.fromEntries(
      results.map((result) => [relative(root, result.filePath), result.messages.map((m) => m.message)]),
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const exporting = (name: string) => `export const ${name} = 1;\n`;

describe('the module graph, as the lint rule keeps it', () => {
  it('an import along an arrow of the graph passes (executions → jobs)', async () => {
    const messages = await lintPlanted({
      'src/jobs/domain/job.ts': exporting('job'),
      'src/executions/domain/run.ts': `import { job } from '../../jobs/domain/job.js';\nexport const run = job;\n`,
    });
    expect(messages).toEqual({ 'src/jobs/domain/job.ts': [], 'src/executions/domain/run.ts': [] });
  });

  it('an import against the graph fails, naming both modules and the arrows the importer has', async () => {
    const messages = await lintPlanted({
      'src/config/orbit-config.ts': exporting('config'),
      'src/jobs/application/uses-config.ts': `import { config } from '../../config/orbit-config.js';\nexport const x = config;\n`,
    });
    expect(messages['src/jobs/application/uses-config.ts']).toEqual([
      'jobs may not import config: it is not an arrow of the module graph (jobs → shared; MODULE_GRAPH in eslint.module-graph.js)',
    ]);
  });

  it('a planted cycle between two modules fails on the arrow that closes it, with the way round', async () => {
    const messages = await lintPlanted({
      'src/workers/http/runs.ts': `import { drain } from '../../executions/http/drain.js';\nexport const runs = drain;\n`,
      'src/executions/http/drain.ts': `import { runs } from '../../workers/http/runs.js';\nexport const drain = runs;\n`,
    });
    expect(messages).toEqual({
      'src/executions/http/drain.ts': [],
      'src/workers/http/runs.ts': [
        'workers may not import executions: that closes a module cycle (workers → executions → workers)',
      ],
    });
  });

  it('a cycle through several modules is named whole (shared → runtime → … → shared)', async () => {
    const messages = await lintPlanted({
      'src/runtime/loop.ts': exporting('loop'),
      'src/shared/clock.ts': `import { loop } from '../runtime/loop.js';\nexport const clock = loop;\n`,
    });
    expect(messages['src/shared/clock.ts']).toEqual([
      expect.stringMatching(
        /^shared may not import runtime: that closes a module cycle \(shared → runtime → .*shared\)$/,
      ),
    ]);
  });

  it('no module imports the composition root; the root imports any module', async () => {
    const messages = await lintPlanted({
      'src/app.module.ts': `import { job } from './jobs/job.js';\nexport const app = job;\n`,
      'src/jobs/job.ts': exporting('job'),
      'src/workers/boot.ts': `import { app } from '../app.module.js';\nexport const boot = app;\n`,
    });
    expect(messages).toEqual({
      'src/app.module.ts': [],
      'src/jobs/job.ts': [],
      'src/workers/boot.ts': [
        'workers may not import the composition root (the files directly in src/): no module does',
      ],
    });
  });

  it('a folder of src/ that the graph does not place fails until it is placed', async () => {
    const messages = await lintPlanted({
      'src/shared/page.ts': exporting('page'),
      'src/reports/weekly.ts': `import { page } from '../shared/page.js';\nexport const weekly = page;\n`,
    });
    expect(messages['src/reports/weekly.ts']).toEqual([
      'src/reports is not a module of the graph: place it in MODULE_GRAPH (eslint.module-graph.js) with the modules it may import',
    ]);
  });

  it('the table itself must be acyclic and name only its own modules', () => {
    expect(checkGraph(MODULE_GRAPH)).toBe(MODULE_GRAPH);
    expect(() => checkGraph({ shared: [], jobs: ['shared', 'executions'], executions: ['jobs'] })).toThrow(
      'MODULE_GRAPH has a cycle: jobs → executions → jobs',
    );
    expect(() => checkGraph({ shared: ['shared'] })).toThrow('MODULE_GRAPH has a cycle: shared → shared');
    expect(() => checkGraph({ jobs: ['shared'] })).toThrow(
      'MODULE_GRAPH: jobs → shared, but shared is not a module of the graph',
    );
  });

  it('npm run lint applies the rule to every file of src/', async () => {
    const eslint = new ESLint({ cwd: join(import.meta.dirname, '../..') });
    for (const file of ['src/jobs/jobs.module.ts', 'src/app.module.ts', 'src/postgres/postgres-access.cjs']) {
      const config = (await eslint.calculateConfigForFile(file)) as { rules: Record<string, unknown[]> };
      expect(config.rules['boundaries/dependencies']?.[0]).toBe(2);
    }
  });
});
