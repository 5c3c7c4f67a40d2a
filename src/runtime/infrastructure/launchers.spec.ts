import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../config/orbit-config.js';
import { chooseLauncher } from './launchers.js';

describe('chooseLauncher', () => {
  let dir: string;
  let built: string;
  let missing: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'orbit-launchers-'));
    built = join(dir, 'orbit-launcher');
    writeFileSync(built, '');
    missing = join(dir, 'not-built');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the native launcher by default where it was built, and the Node spawner where not', () => {
    expect(chooseLauncher('auto', built)).toBe('native');
    expect(chooseLauncher('auto', missing)).toBe('node');
  });

  it('takes the Node spawner when asked, built or not', () => {
    expect(chooseLauncher('node', built)).toBe('node');
    expect(chooseLauncher('node', missing)).toBe('node');
  });

  it('refuses to start when the native launcher is asked for but was not built, saying how to build it', () => {
    expect(chooseLauncher('native', built)).toBe('native');
    expect(() => chooseLauncher('native', missing)).toThrow(ConfigError);
    expect(() => chooseLauncher('native', missing)).toThrow(
      `ORBIT_LAUNCHER=native, but there is no native launcher at ${missing}`,
    );
    expect(() => chooseLauncher('native', missing)).toThrow('or set ORBIT_LAUNCHER=auto or node');
  });
});
