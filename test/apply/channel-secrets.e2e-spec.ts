import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app.js';

type Body = Record<string, unknown>;
type Plan = { items: Array<{ name: string; action: string; changes: Body[] }> };

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** Every secret below holds this word: no answer may. */
const HIDDEN = 's3cret';
const HOOK = 'http://127.0.0.1:9/hooks/path-s3cret?token=query-s3cret';
const SLACK = 'http://127.0.0.1:9/services/T000/B000/slack-s3cret';
const FILE = {
  channels: {
    ops: { type: 'webhook', url: HOOK, secret: SECRET },
    team: { type: 'slack', url: SLACK },
  },
};

/** What `orbit apply` does to a file's placeholders, from this environment. */
function filled(file: unknown, env: Record<string, string>): unknown {
  return JSON.parse(JSON.stringify(file).replace(/\$\{(\w+)\}/g, (_, name: string) => env[name] ?? '')) as unknown;
}

describe("channels' URLs in answers, plans, exports and the audit trail", () => {
  let t: TestApp;
  const answers: string[] = [];
  const http = () => request(t.app.getHttpServer());
  const remember = <T extends { text: string }>(response: T) => {
    answers.push(response.text);
    return response;
  };
  const apply = async (file: unknown, status = 200) =>
    remember(await http().post('/apply').send({ file }).expect(status)).body as Plan & { message: string };
  const stored = async () =>
    Object.fromEntries(
      (await t.db.sql(`SELECT name, settings FROM channels ORDER BY name`)).rows.map((row: Body) => [
        row.name,
        row.settings,
      ]),
    );

  beforeAll(async () => {
    t = await createTestApp({ env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => t.close());

  it('channels answer a URL as its scheme, host, port and the words of its path', async () => {
    expect((await apply(FILE)).items.map((item) => item.action)).toEqual(['create', 'create']);
    const { items } = remember(await http().get('/channels').expect(200)).body as { items: Body[] };
    expect(Object.fromEntries(items.map((channel) => [channel.name, channel.settings]))).toEqual({
      ops: { url: 'http://127.0.0.1:9/hooks/…?token=…', hasSecret: true },
      team: { url: 'http://127.0.0.1:9/services/…/…/…' },
    });
  });

  it("a plan shows a changed URL masked, before and after, and a secret as '(secret)'", async () => {
    const moved = { type: 'webhook', url: 'https://8.8.8.8/other-s3cret', secret: SECRET.replace('Mf', 'Xy') };
    const plan = await apply({ channels: { ...FILE.channels, ops: moved } });
    expect(plan.items[0]).toEqual({
      section: 'channels',
      name: 'ops',
      action: 'update',
      changes: [
        { field: 'url', from: 'http://127.0.0.1:9/hooks/…?token=…', to: 'https://8.8.8.8/…' },
        { field: 'secret', from: '(secret)', to: '(secret)' },
      ],
    });
    const back = await apply({ channels: { ...FILE.channels, team: { type: 'slack', url: `${SLACK}-new` } } });
    expect(back.items.map((item) => item.changes)).toEqual([
      [
        { field: 'url', from: 'https://8.8.8.8/…', to: 'http://127.0.0.1:9/hooks/…?token=…' },
        { field: 'secret', from: '(secret)', to: '(secret)' },
      ],
      [{ field: 'url', from: 'http://127.0.0.1:9/services/…/…/…', to: 'http://127.0.0.1:9/services/…/…/…' }],
    ]);
    await apply(FILE);
  });

  it('the export has placeholders for URLs and secrets; filled in, it changes nothing', async () => {
    const exported = remember(await http().get('/orbit-file').expect(200)).body as Body;
    expect(exported.channels).toEqual({
      ops: { type: 'webhook', url: '${ORBIT_CHANNEL_OPS_URL}', secret: '${ORBIT_CHANNEL_OPS_SECRET}' },
      team: { type: 'slack', url: '${ORBIT_CHANNEL_TEAM_URL}' },
    });
    const env = { ORBIT_CHANNEL_OPS_URL: HOOK, ORBIT_CHANNEL_OPS_SECRET: SECRET, ORBIT_CHANNEL_TEAM_URL: SLACK };
    expect((await apply(filled(exported, env))).items.map((item) => item.action)).toEqual(['unchanged', 'unchanged']);
  });

  it('neither an unfilled export nor a masked URL written back replaces the stored URL', async () => {
    const before = await stored();
    expect(before.ops).toEqual({ type: 'webhook', url: HOOK, secret: SECRET });
    const exported = remember(await http().get('/orbit-file').expect(200)).body;
    // every unfilled placeholder is named, each with the variable that fills it
    expect((await apply(exported, 400)).message).toBe(
      ['OPS', 'TEAM']
        .map(
          (name) =>
            `channels.${name.toLowerCase()}: url is the placeholder \${ORBIT_CHANNEL_${name}_URL}, not a URL: orbit apply fills it from the environment variable ORBIT_CHANNEL_${name}_URL`,
        )
        .join('; '),
    );
    const masked = { channels: { team: { type: 'slack', url: 'http://127.0.0.1:9/…' } } };
    expect((await apply(masked, 400)).message).toContain('channels.team: url is masked as Orbit shows it');
    const [team] = ((await http().get('/channels').expect(200)).body as { items: Body[] }).items.filter(
      (channel) => channel.name === 'team',
    );
    const patched = await http()
      .patch(`/channels/${team!.id as string}`)
      .send({ url: (team!.settings as Body).url })
      .expect(400);
    expect((patched.body as Body).message).toContain('url is masked as Orbit shows it');
    expect(await stored()).toEqual(before);
  });

  it('no answer and no audit entry holds a secret', async () => {
    const audit = remember(await http().get('/audit?limit=100').expect(200));
    expect((audit.body as { items: Body[] }).items.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(['file.applied']),
    );
    expect(answers.length).toBeGreaterThan(10);
    for (const text of answers) {
      expect(text).not.toContain(HIDDEN);
      expect(text).not.toContain(SECRET.slice('whsec_'.length));
    }
  });
});
