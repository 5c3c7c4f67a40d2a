import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The embedded PostgreSQL's superuser: only Orbit's start-up uses it, to set up the roles. */
export const SUPERUSER = 'postgres';
/** The role every Orbit process of a data folder connects as: it owns Orbit's tables, and nothing more. */
export const ORBIT_ROLE = 'orbit';
/**
 * The superuser's password that every installation shared before each data folder had its own.
 * Known only so that a folder from that time can be moved off it at its next start.
 */
export const FORMER_PASSWORD = 'orbit';

/** One password per role, random for each data folder. */
export interface EmbeddedPasswords {
  [SUPERUSER]: string;
  [ORBIT_ROLE]: string;
}

/** Where a data folder keeps them: readable by its owner only (0600). */
export const passwordFile = (dataDir: string): string => join(dataDir, 'postgres-passwords.json');

/** The data folder's passwords, or undefined when it has none yet. */
export function readPasswords(dataDir: string): EmbeddedPasswords | undefined {
  const file = passwordFile(dataDir);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${file} cannot be read (${(error as Error).message}): remove it only together with the database`, {
      cause: error,
    });
  }
  const passwords = parsed as Partial<Record<string, unknown>>;
  if (typeof passwords[SUPERUSER] !== 'string' || typeof passwords[ORBIT_ROLE] !== 'string') {
    throw new Error(`${file} must hold the passwords of '${SUPERUSER}' and '${ORBIT_ROLE}'`);
  }
  // a copy or a restore may have widened it
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return { [SUPERUSER]: passwords[SUPERUSER], [ORBIT_ROLE]: passwords[ORBIT_ROLE] };
}

/** The data folder's passwords, made now if it has none; of two processes at once, the first one's count. */
export function readOrCreatePasswords(dataDir: string): EmbeddedPasswords {
  const fresh: EmbeddedPasswords = { [SUPERUSER]: randomPassword(), [ORBIT_ROLE]: randomPassword() };
  try {
    writeFileSync(passwordFile(dataDir), `${JSON.stringify(fresh, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readPasswords(dataDir)!;
}

/** A connection URL of the embedded PostgreSQL (Orbit's data is in its database `postgres`). */
export function embeddedUrl(port: number, role: keyof EmbeddedPasswords, passwords: EmbeddedPasswords): string {
  return `postgres://${role}:${encodeURIComponent(passwords[role])}@127.0.0.1:${port}/postgres`;
}

const randomPassword = (): string => randomBytes(32).toString('base64url');
