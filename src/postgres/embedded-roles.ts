import pg from 'pg';
import {
  EmbeddedPasswords,
  embeddedUrl,
  FORMER_PASSWORD,
  ORBIT_ROLE,
  passwordFile,
  SUPERUSER,
} from './embedded-passwords.js';

/**
 * Whatever in schema public is not Orbit's role's yet becomes its: the migrations alter and
 * replace these objects, which only their owner may. Tables take their indexes, triggers and
 * column sequences along; objects of extensions stay with the extension.
 */
const ADOPT_SCHEMA = `
DO $$
DECLARE
  statement text;
BEGIN
  EXECUTE format('ALTER SCHEMA public OWNER TO %I', '${ORBIT_ROLE}');
  FOR statement IN
    SELECT format('ALTER TABLE %s OWNER TO %I', c.oid::regclass, '${ORBIT_ROLE}') FROM pg_class c
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
       AND c.relowner <> '${ORBIT_ROLE}'::regrole
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
    UNION ALL
    SELECT format('ALTER SEQUENCE %s OWNER TO %I', c.oid::regclass, '${ORBIT_ROLE}') FROM pg_class c
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'S' AND c.relowner <> '${ORBIT_ROLE}'::regrole
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                          AND d.deptype IN ('a', 'i', 'e'))
    UNION ALL
    SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, '${ORBIT_ROLE}') FROM pg_proc p
     WHERE p.pronamespace = 'public'::regnamespace AND p.proowner <> '${ORBIT_ROLE}'::regrole
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    UNION ALL
    SELECT format('ALTER TYPE %s OWNER TO %I', t.oid::regtype, '${ORBIT_ROLE}') FROM pg_type t
     WHERE t.typnamespace = 'public'::regnamespace AND t.typowner <> '${ORBIT_ROLE}'::regrole
       AND (t.typtype IN ('e', 'd', 'r')
            OR (t.typtype = 'c' AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c'))
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')
  LOOP
    EXECUTE statement;
  END LOOP;
END
$$`;

/**
 * Run by the process that starts the embedded PostgreSQL, before any other connects: the one
 * use of the superuser. Moves a folder from the former shared password to its own, gives
 * Orbit's role (no superuser, no CREATEDB, no CREATEROLE) its password, and gives it Orbit's
 * objects. Every step is idempotent: each start checks them all again.
 */
export async function secureEmbeddedDatabase(
  dataDir: string,
  port: number,
  passwords: EmbeddedPasswords,
  log: (line: string) => void,
): Promise<void> {
  const superuser = await signInAsSuperuser(dataDir, port, passwords, log);
  try {
    const role = superuser.escapeIdentifier(ORBIT_ROLE);
    const { rowCount } = await superuser.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [ORBIT_ROLE]);
    if (rowCount === 0) await superuser.query(`CREATE ROLE ${role}`);
    await superuser.query(
      `ALTER ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS ` +
        `PASSWORD ${superuser.escapeLiteral(passwords[ORBIT_ROLE])}`,
    );
    await superuser.query(ADOPT_SCHEMA);
  } finally {
    await superuser.end();
  }
}

async function signInAsSuperuser(
  dataDir: string,
  port: number,
  passwords: EmbeddedPasswords,
  log: (line: string) => void,
): Promise<pg.Client> {
  try {
    return await connect(embeddedUrl(port, SUPERUSER, passwords));
  } catch (error) {
    if (!isWrongPassword(error)) throw error;
  }
  // a folder made before it had passwords of its own (or a start that stopped right after
  // writing them): the former shared password is replaced, so that it opens nothing any more
  let former: pg.Client;
  try {
    former = await connect(embeddedUrl(port, SUPERUSER, { ...passwords, [SUPERUSER]: FORMER_PASSWORD }));
  } catch (error) {
    if (!isWrongPassword(error)) throw error;
    throw new Error(
      `The embedded PostgreSQL in ${dataDir} refuses the superuser password of ${passwordFile(dataDir)}, and the ` +
        'former shared one: that file is not the one made with this cluster (restore that one)',
      { cause: error },
    );
  }
  await former.query(
    `ALTER ROLE ${former.escapeIdentifier(SUPERUSER)} PASSWORD ${former.escapeLiteral(passwords[SUPERUSER])}`,
  );
  log(
    `The embedded PostgreSQL's superuser had the password all installations once shared; ` +
      `it now has this folder's own (${passwordFile(dataDir)}), and Orbit connects as role '${ORBIT_ROLE}'`,
  );
  return former;
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
}

/** PostgreSQL's invalid_password. */
export const isWrongPassword = (error: unknown): boolean => (error as { code?: unknown }).code === '28P01';
