import { postOnce } from '../../src/alerts/infrastructure/http-post.js';
import { startReceiver } from './support.js';

describe('an alert attempt over HTTP', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver((req) => (req.path === '/moved' ? 302 : 204));
  });
  afterAll(async () => {
    await receiver?.close();
  });
  const post = (path: string, allowPrivate = true, signal = AbortSignal.timeout(5000)) =>
    postOnce(receiver.url(path), { 'webhook-id': 'msg_1' }, '{"a":1}', allowPrivate, signal);

  it('a 2xx is success, with its status and latency', async () => {
    expect(await post('/ok')).toMatchObject({ ok: true, httpStatus: 204, error: null, latencyMs: expect.any(Number) });
    expect(receiver.at('/ok')[0]).toMatchObject({ body: '{"a":1}', headers: { 'webhook-id': 'msg_1' } });
  });

  it('a redirect is not followed: a failed attempt', async () => {
    expect(await post('/moved')).toMatchObject({
      ok: false,
      httpStatus: 302,
      error: expect.stringContaining('HTTP 302'),
    });
    expect(receiver.received.filter((r) => r.path !== '/moved' && r.path !== '/ok')).toHaveLength(0);
  });

  it('the address is checked at delivery: loopback without the setting is a failed attempt, nothing sent', async () => {
    const before = receiver.received.length;
    expect(await post('/private', false)).toMatchObject({
      ok: false,
      httpStatus: null,
      error: expect.stringContaining('ORBIT_ALERTS_ALLOW_PRIVATE'),
    });
    expect(await postOnce('http://localhost:1/x', {}, '{}', false, AbortSignal.timeout(5000))).toMatchObject({
      ok: false,
      error: expect.stringContaining('localhost resolves to'),
    });
    expect(receiver.received.length).toBe(before);
  });

  it('a connection refused is a failed attempt with its error', async () => {
    expect(await postOnce('http://127.0.0.1:1/x', {}, '{}', true, AbortSignal.timeout(5000))).toMatchObject({
      ok: false,
      httpStatus: null,
      error: expect.stringContaining('ECONNREFUSED'),
    });
  });
});
