import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../config/orbit-config.js';
import { chooseLauncher, startLauncher } from './launchers.js';

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

describe('startLauncher', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'orbit-launchers-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says a launcher that could not start is gone, so that its runs are answered', async () => {
    const launcher = startLauncher('native', () => undefined, join(dir, 'removed-since'));
    await expect(launcher.exited).resolves.toBe(`could not start: spawn ${join(dir, 'removed-since')} ENOENT`);
    expect(launcher.open).toBe(false);
  });

  it('kills a launcher whose answers are not JSON lines, and hands on the ones before', async () => {
    const garbling = join(dir, 'garbling');
    writeFileSync(
      garbling,
      '#!/bin/sh\necho \'[{"type":"error","id":null,"error":"x"}]\'\necho garbage\nexec sleep 60\n',
    );
    chmodSync(garbling, 0o755);
    const received: unknown[] = [];
    const launcher = startLauncher('native', (messages) => received.push(...messages), garbling);
    await expect(launcher.exited).resolves.toBe('code null, signal SIGKILL');
    expect(received).toEqual([{ type: 'error', id: null, error: 'x' }]);
  });
});
