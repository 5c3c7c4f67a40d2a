import request from 'supertest';
import { JOB_LIMITS } from '../../src/jobs/domain/job.js';
import { API_TAGS } from '../../src/http-app.js';
import { ORBIT_VERSION } from '../../src/shared/orbit-version.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { EVENT_FIELDS, JOB_FIELDS } from '../support/contract.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema?: { $ref?: string } }> };
}
interface OpenApi {
  openapi: string;
  tags: Array<{ name: string }>;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
}

/** Every endpoint of the contract: its success status and the error statuses it must document. */
const ENDPOINTS: Array<[string, string, number, number[]]> = [
  ['post', '/jobs', 201, [400, 409]],
  ['get', '/jobs', 200, [400]],
  ['get', '/jobs/{id}', 200, [400, 404]],
  ['patch', '/jobs/{id}', 200, [400, 404, 409]],
  ['delete', '/jobs/{id}', 204, [400, 404, 409]],
  ['get', '/jobs/{id}/next-runs', 200, [400, 404]],
  ['get', '/jobs/{id}/stats', 200, [400, 404]],
  ['get', '/jobs/recent-runs', 200, [400]],
  ['post', '/jobs/{id}/executions', 201, [400, 404]],
  ['get', '/executions', 200, [400]],
  ['get', '/executions/{id}', 200, [400, 404]],
  ['get', '/executions/{id}/output/stream', 200, [400, 404]],
  ['post', '/executions/{id}/start', 200, [400, 404, 409]],
  ['post', '/executions/{id}/succeed', 200, [400, 404, 409]],
  ['post', '/executions/{id}/fail', 200, [400, 404, 409]],
  ['post', '/executions/{id}/cancel', 200, [400, 404, 409]],
  ['get', '/events', 200, [400]],
  ['get', '/events/stream', 200, [400]],
  ['get', '/overview', 200, []],
  ['get', '/overview/activity', 200, [400]],
];

describe('the API documentation', () => {
  let t: TestApp;
  let doc: OpenApi;

  const schemaName = (ref: string | undefined): string => (ref ?? '').replace('#/components/schemas/', '');

  /** The documented operation, failing the test when it is missing. */
  function op(method: string, path: string): Operation {
    const operation = doc.paths[path]?.[method];
    if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not documented`);
    return operation;
  }

  beforeAll(async () => {
    t = await createTestApp();
    const res = await request(t.app.getHttpServer()).get('/docs-json');
    expect(res.status).toBe(200);
    doc = res.body as OpenApi;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('GET /docs-json answers an OpenAPI 3 document', () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths).toEqual(expect.any(Object));
  });

  it('lists every endpoint of the contract', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented).toEqual(
      expect.arrayContaining(ENDPOINTS.map(([method, path]) => `${method.toUpperCase()} ${path}`)),
    );
  });

  it.each(ENDPOINTS)('%s %s documents its %p answer and its errors %p', (method, path, success, errors) => {
    const statuses = Object.keys(op(method, path).responses).map(Number);
    expect(statuses).toContain(success);
    expect(statuses).toEqual(expect.arrayContaining(errors));
  });

  it.each(ENDPOINTS)(
    '%s %s documents every error as {statusCode, message, error}, with the optional field and errors',
    (method, path) => {
      const errors = Object.entries(op(method, path).responses).filter(([status]) => Number(status) >= 400);
      expect(errors.length).toBeGreaterThan(0);
      for (const [, response] of errors) {
        const name = schemaName(response.content?.['application/json']?.schema?.$ref);
        expect(doc.components.schemas[name]?.properties).toEqual({
          statusCode: expect.any(Object),
          message: expect.any(Object),
          error: expect.any(Object),
          field: expect.any(Object),
          errors: expect.any(Object),
        });
        expect(doc.components.schemas[name]?.required?.sort()).toEqual(['error', 'message', 'statusCode']);
      }
    },
  );

  it('documents each mistake of an error answer with its field', () => {
    expect(doc.components.schemas['FieldErrorDto']).toMatchObject({
      properties: { field: { type: 'string' }, message: { type: 'string' } },
      required: ['field', 'message'],
    });
  });

  it('a job is documented with every field of the contract', () => {
    const ref = op('get', '/jobs/{id}').responses['200']?.content?.['application/json']?.schema?.$ref;
    const properties = Object.keys(doc.components.schemas[schemaName(ref)]?.properties ?? {});
    expect(properties.sort()).toEqual([...JOB_FIELDS].sort());
  });

  it('an event is documented with every field GET /events answers, and the stream with its cursor', () => {
    const page = op('get', '/events').responses['200']?.content?.['application/json']?.schema?.$ref;
    const items = doc.components.schemas[schemaName(page)]?.properties?.items as { items?: { $ref?: string } };
    const properties = Object.keys(doc.components.schemas[schemaName(items.items?.$ref)]?.properties ?? {});
    expect(properties.sort()).toEqual([...EVENT_FIELDS].sort());
    const stream = op('get', '/events/stream');
    expect(Object.keys(stream.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    expect((stream.parameters ?? []).map((p) => p.name)).toEqual(expect.arrayContaining(['after', 'Last-Event-ID']));
  });

  it('creating a job documents name, command and cronExpression as required', () => {
    const ref = op('post', '/jobs').requestBody?.content['application/json']?.schema?.$ref;
    const schema = doc.components.schemas[schemaName(ref)];
    expect(schema?.required?.sort()).toEqual(['command', 'cronExpression', 'name']);
    expect(Object.keys(schema?.properties ?? {})).toEqual(
      expect.arrayContaining(['timezone', 'maxRetries', 'timeoutSeconds', 'enabled']),
    );
  });

  it("documents a job's limits as the domain enforces them", () => {
    const ref = op('post', '/jobs').requestBody?.content['application/json']?.schema?.$ref;
    const properties = doc.components.schemas[schemaName(ref)]?.properties ?? {};
    expect(properties).toMatchObject({
      name: { maxLength: JOB_LIMITS.nameMaxLength },
      maxRetries: {
        minimum: JOB_LIMITS.maxRetries.min,
        maximum: JOB_LIMITS.maxRetries.max,
        default: JOB_LIMITS.maxRetries.default,
      },
      timeoutSeconds: {
        minimum: JOB_LIMITS.timeoutSeconds.min,
        maximum: JOB_LIMITS.timeoutSeconds.max,
        default: JOB_LIMITS.timeoutSeconds.default,
      },
    });
  });

  it('lists the tags with jobs and executions first, and every tag an endpoint uses among them', () => {
    const listed = doc.tags.map((tag) => tag.name);
    expect(listed.slice(0, 2)).toEqual(['jobs', 'executions']);
    const used = Object.values(doc.paths).flatMap((ops) =>
      Object.values(ops).flatMap((op) => (op as { tags?: string[] }).tags ?? []),
    );
    expect([...new Set(used)].filter((tag) => !listed.includes(tag))).toEqual([]);
    expect(listed).toEqual(API_TAGS.map(([name]) => name));
  });

  it("states package.json's version", () => {
    expect(doc.info.version).toBe(ORBIT_VERSION);
  });

  it.each(['succeed', 'fail'])('POST /executions/{id}/%s documents exitCode as required', (action) => {
    const ref = op('post', `/executions/{id}/${action}`).requestBody?.content['application/json']?.schema?.$ref;
    expect(doc.components.schemas[schemaName(ref)]?.required).toContain('exitCode');
  });

  it.each([
    ['get', '/jobs', ['limit', 'cursor', 'enabled', 'failing']],
    ['get', '/executions', ['limit', 'cursor', 'jobId', 'status', 'retryOf']],
    ['get', '/jobs/recent-runs', ['ids', 'count']],
    ['get', '/events', ['after', 'limit']],
    ['get', '/jobs/{id}/next-runs', ['id', 'count']],
    ['get', '/jobs/{id}/stats', ['id', 'hours']],
  ])('%s %s documents its parameters %p', (method, path, names) => {
    const parameters = (op(method, path).parameters ?? []).map((p) => p.name);
    expect(parameters).toEqual(expect.arrayContaining(names));
  });

  it('GET /docs answers the Swagger UI as HTML', async () => {
    const res = await request(t.app.getHttpServer()).get('/docs').redirects(1);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toMatch(/swagger-ui/i);
  });

  it("only Swagger UI may run inline scripts: /docs allows them, the API's answers keep helmet's strict policy", async () => {
    const docs = await request(t.app.getHttpServer()).get('/docs');
    const api = await request(t.app.getHttpServer()).get('/health/live');

    expect(docs.headers['content-security-policy']).toContain("script-src 'self' 'unsafe-inline'");
    expect(api.headers['content-security-policy']).toContain("script-src 'self';");
    for (const res of [docs, api]) expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
