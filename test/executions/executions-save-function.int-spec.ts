import { EXECUTION_COLUMNS } from '../../src/executions/infrastructure/execution.columns.js';
import { SAVED } from '../../src/executions/infrastructure/sql-execution.repository.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';

/**
 * A save is orbit_save_executions, whose columns were fixed by its migration. When a field comes
 * to change after the insert (`changes: true` in the column registry), the repository sends one
 * array more: this test fails until a migration replaces the function with the new list.
 */
describe('the save function of the last migration', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(async () => {
    await db?.drop();
  });

  it("takes the repository's saved columns, with their types, then the lease", async () => {
    const { rows } = await db.sql(
      `SELECT p.proargnames AS names, array(SELECT format_type(t, NULL) FROM unnest(p.proargtypes) AS t) AS types,
              array(SELECT format_type(t::regtype, NULL) FROM unnest($1::text[]) AS t) AS expected
         FROM pg_proc p WHERE p.proname = 'orbit_save_executions'`,
      [[...SAVED.map((field) => `${EXECUTION_COLUMNS.type(field)}[]`), 'timestamptz']],
    );
    expect(rows).toHaveLength(1);
    const [{ names, types, expected }] = rows as [{ names: string[]; types: string[]; expected: string[] }];
    expect(names).toEqual([...SAVED.map((field) => EXECUTION_COLUMNS.column(field)), 'lease']);
    expect(types).toEqual(expected);
  });
});
