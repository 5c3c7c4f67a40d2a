import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOrbitFile } from './orbit-file.js';

describe('readOrbitFile: ${NAME} placeholders', () => {
  let dir: string;
  const read = (text: string, env: NodeJS.ProcessEnv = {}) => {
    const path = join(dir, 'orbit.yaml');
    writeFileSync(path, text);
    return readOrbitFile(path, env);
  };
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'orbit-file-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fills a channel's secret and url from the environment", () => {
    const file = read(
      'channels:\n  ops:\n    type: webhook\n    url: https://${HOST}/hook\n    secret: ${SECRET}\n' +
        '  chat:\n    type: slack\n    url: ${SLACK_URL}\n',
      { HOST: 'ops.example.com', SECRET: 'whsec_abc', SLACK_URL: 'https://hooks.example.com/T/B/x' },
    );
    expect(file.channels).toEqual({
      ops: { type: 'webhook', url: 'https://ops.example.com/hook', secret: 'whsec_abc' },
      chat: { type: 'slack', url: 'https://hooks.example.com/T/B/x' },
    });
  });

  it('leaves every other field as written: a command keeps ${X} and $${X} for its shell', () => {
    const file = read(
      'channels:\n  mail:\n    type: email\n    to: ["${USER}@example.com"]\n' +
        'jobs:\n  backup:\n    command: tar czf "/backups/${HOST}.tgz" $${X}\n    cronExpression: "@daily"\n',
      { USER: 'ops', HOST: 'db-1' },
    );
    expect(file).toEqual({
      channels: { mail: { type: 'email', to: ['${USER}@example.com'] } },
      jobs: { backup: { command: 'tar czf "/backups/${HOST}.tgz" $${X}', cronExpression: '@daily' } },
    });
  });

  it('$${ is a literal ${ in a filled field, and only there', () => {
    const file = read('channels:\n  ops:\n    type: webhook\n    url: https://x/$${HOST}/${HOST}\n', { HOST: 'h' });
    expect((file.channels as Record<string, { url: string }>).ops?.url).toBe('https://x/${HOST}/h');
  });

  it('a variable that is not set is refused, naming where it is', () => {
    expect(() => read('channels:\n  ops:\n    type: webhook\n    secret: ${MISSING}\n')).toThrow(
      'channels.ops.secret: the environment variable MISSING is not set',
    );
  });

  it('a file that is no mapping is refused', () => {
    expect(() => read('- a\n- b\n')).toThrow('must hold a mapping (channels:, jobs:)');
  });
});
