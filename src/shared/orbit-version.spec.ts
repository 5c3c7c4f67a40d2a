import { readFileSync } from 'node:fs';
import { ORBIT_VERSION } from './orbit-version.js';

describe('ORBIT_VERSION', () => {
  it('is the version in package.json', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(ORBIT_VERSION).toBe(version);
    expect(ORBIT_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });
});
