import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app.js';

/** The budget for the first load: JavaScript and CSS, after gzip. */
const FIRST_LOAD_BUDGET = 200 * 1024;

/** The built dashboard's entry script, as index.html names it. */
function scriptOf(html: string): string {
  const src = /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1];
  if (!src) throw new Error(`index.html names no module script:\n${html}`);
  return src;
}

describe('the dashboard is served under /ui/', () => {
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false });
  });
  afterAll(() => t.close());

  it('/ leads to /ui/', async () => {
    const res = await api().get('/');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/ui/');
  });

  it.each(['/ui/', '/ui', '/ui/jobs', '/ui/jobs/0b7d4c1e-3f4a-4f43-9a53-6a1f2f1f5a10?x=1', '/ui/no/such/page'])(
    '%s answers the page, without a token',
    async (path) => {
      const res = await api().get(path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.text).toContain('<div id="app"></div>');
    },
  );

  it('the page allows only its own scripts and styles: no inline script, no eval, no other origin', async () => {
    const csp = (await api().get('/ui/jobs')).headers['content-security-policy'] as string;
    const directives = new Map(csp.split(';').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('require-trusted-types-for')).toEqual(["'script'"]);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https:|data:/);
  });

  it('the page has no inline script and loads nothing from another origin', async () => {
    const html = (await api().get('/ui/')).text;
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('its assets are served with a long cache life, and a missing one is a JSON 404, not the page', async () => {
    const script = scriptOf((await api().get('/ui/')).text);
    const asset = await api().get(script);
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await api().get('/ui/assets/missing-0000.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      statusCode: 404,
      message: 'Cannot GET /ui/assets/missing-0000.js',
      error: 'Not Found',
    });
  });

  it(`the first load is at most ${FIRST_LOAD_BUDGET / 1024} KB of JavaScript and CSS after gzip`, async () => {
    const html = (await api().get('/ui/')).text;
    const assets = [...html.matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css'))).toBe(true);
    let gzipped = 0;
    for (const asset of assets) {
      const res = await api().get(asset).expect(200);
      gzipped += gzipSync(res.text).length;
    }
    expect(gzipped).toBeLessThanOrEqual(FIRST_LOAD_BUDGET);
  });

  it('only GET reaches the page', async () => {
    const res = await api().post('/ui/jobs').send({});
    expect(res.status).toBe(404);
  });

  it('API routes stay as they are: an unknown one is a JSON 404, and a token is still needed', async () => {
    expect((await api().get('/no-such-route')).status).toBe(404);
    const jobs = await api().get('/jobs');
    expect(jobs.status).toBe(401);
    expect(jobs.headers['content-security-policy']).toContain("default-src 'self'");
  });
});
