import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { LAUNCHER_KINDS } from '../../src/config/orbit-config.js';
import { LANE, LIMITED } from '../../src/executions/infrastructure/claim-lanes.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** What `npm run lint`'s import rule says of `source` at `path` (a planted file: it need not exist). */
async function importRefusals(path: string, source: string): Promise<string[]> {
  const config = (await new ESLint({ cwd: ROOT }).calculateConfigForFile(path)) as { rules: Linter.RulesRecord };
  const rule = config.rules['no-restricted-imports'];
  return new Linter({ configType: 'flat' })
    .verify(
      source,
      [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: { 'no-restricted-imports': rule } }],
      path,
    )
    .map((message) => message.message);
}

describe('migrations are history: self-contained, and the runtime checked against them', () => {
  it.each([
    ['src/executions/infrastructure/planted.ts', "import { X } from '../../../migrations/1765411200000-Placement.js';"],
    ['src/postgres/planted.spec.ts', "import { X } from '../../migrations/1765411200000-Placement.js';"],
    ['test/planted.int-spec.ts', "import { X } from '../migrations/1765411200000-Placement.js';"],
  ])('%s may not import a migration', async (path, source) => {
    expect(await importRefusals(path, source)).toEqual([
      expect.stringContaining('A migration records what already ran: nothing but its registry'),
    ]);
  });

  it('the registry of migrations may import them', async () => {
    const source = "import { Placement1765411200000 } from '../../migrations/1765411200000-Placement.js';";
    expect(await importRefusals('src/postgres/data-source-options.ts', source)).toEqual([]);
  });

  it('a migration imports nothing but typeorm', async () => {
    const path = 'migrations/1799999999999-Planted.ts';
    expect(await importRefusals(path, "import { QueryRunner } from 'typeorm';")).toEqual([]);
    for (const source of [
      "import { LANE } from './1765411200000-Placement.js';",
      "import { EXECUTION_COLUMNS } from '../../src/executions/infrastructure/execution.columns.js';",
    ]) {
      expect(await importRefusals(path, source)).toEqual([
        expect.stringContaining('A migration is self-contained: it imports nothing but typeorm.'),
      ]);
    }
  });

  describe("the runtime's expressions and lists, and the migrated indexes and checks", () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase();
    });
    afterAll(() => db.drop());

    /** The index's definition as PostgreSQL normalized it, without its name. */
    const definition = async (name: string) => {
      const { rows } = await db.sql(`SELECT pg_get_indexdef($1::regclass) AS def`, [name]);
      return (rows as [{ def: string }])[0].def.replace(` ${name} `, ' ');
    };

    it.each([
      ['executions_claim_lane_idx', `(${LANE}, priority DESC, due_at, id) WHERE status = 'QUEUED' AND ${LIMITED}`],
      ['executions_running_lane_idx', `(${LANE}) WHERE status = 'RUNNING' AND ${LIMITED}`],
    ])('%s is the index the runtime writes its conditions for', async (name, shape) => {
      await db.sql(`CREATE INDEX runtime_expression_idx ON executions_active ${shape}`);
      try {
        expect(await definition('runtime_expression_idx')).toBe(await definition(name));
      } finally {
        await db.sql(`DROP INDEX runtime_expression_idx`);
      }
    });

    it("the workers' launcher check admits the launchers the runtime knows, and no other", async () => {
      const constraint = async (name: string) => {
        const { rows } = await db.sql(
          `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = $1 AND conrelid = 'workers'::regclass`,
          [name],
        );
        return (rows as [{ def: string }])[0].def;
      };
      const kinds = LAUNCHER_KINDS.map((kind) => `'${kind}'`).join(', ');
      await db.sql(`ALTER TABLE workers ADD CONSTRAINT runtime_launcher_check CHECK (launcher IN (${kinds}))`);
      try {
        expect(await constraint('runtime_launcher_check')).toBe(await constraint('workers_launcher_check'));
      } finally {
        await db.sql(`ALTER TABLE workers DROP CONSTRAINT runtime_launcher_check`);
      }
    });
  });
});
