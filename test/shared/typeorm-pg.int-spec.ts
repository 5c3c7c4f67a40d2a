import pg from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/postgres/data-source-options.js';
import { Database } from '../../src/shared/infrastructure/database.js';
import { pgClient, pgPool } from '../../src/shared/infrastructure/typeorm-pg.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';

/**
 * Database.rows sends its statements to the pg objects under TypeORM, one of which TypeORM does
 * not document. These pin what a TypeORM upgrade could move: each fails with typeorm-pg.ts's
 * message naming what moved, before any repository meets it.
 */
describe("the pg objects under TypeORM's data source", () => {
  let db: TestDatabase;
  let source: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase();
    source = await new DataSource(dataSourceOptions(db.url, 3)).initialize();
  });

  afterAll(async () => {
    if (source.isInitialized) await source.destroy();
    await db?.drop();
  });

  it("the driver's pool is the pg Pool built from Orbit's options", () => {
    const pool = pgPool(source);
    expect(pool).toBeInstanceOf(pg.Pool);
    expect(pool.options).toMatchObject({ max: 3, application_name: 'orbit' });
  });

  it("a transaction's query runner holds the pg client of its connection", async () => {
    await source.transaction(async (manager) => {
      const client = await pgClient(manager.queryRunner!);
      expect(client).toBeInstanceOf(pg.Client);
      const [{ pid }] = await manager.query<[{ pid: number }]>('SELECT pg_backend_pid() AS pid');
      expect((await client.query('SELECT pg_backend_pid() AS pid')).rows).toEqual([{ pid }]);
    });
  });

  it('Database.rows runs in the transaction it joins, and on the pool outside one', async () => {
    const database = new Database(source);
    const seen = await database.run(async () => {
      await database.rows(`CREATE TEMPORARY TABLE seen (n integer) ON COMMIT DROP`);
      await database.rows(`INSERT INTO seen VALUES (1)`);
      return database.rows<{ n: number }>(`SELECT n FROM seen`);
    });
    expect(seen).toEqual([{ n: 1 }]);
    expect(await database.rows<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('says the connection is closed once the data source is', async () => {
    const closing = await new DataSource(dataSourceOptions(db.url, 1)).initialize();
    await closing.destroy();
    await expect(new Database(closing).rows('SELECT 1')).rejects.toThrow('The database connection is closed');
  });
});
