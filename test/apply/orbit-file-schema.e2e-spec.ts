import { readFileSync, writeFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import request from 'supertest';
import { parse } from 'yaml';
import { createTestApp, TestApp } from '../support/test-app.js';

/** The schema as published in the repo, for editors that read it from a checkout. */
const SCHEMA_FILE = new URL('../../docs/orbit-file.schema.json', import.meta.url).pathname;
const EXAMPLE_FILE = new URL('../../docs/orbit.example.yaml', import.meta.url).pathname;
/** `ORBIT_WRITE_SCHEMA=1 npm test -- test/apply/orbit-file-schema.e2e-spec.ts` writes the file instead. */
const WRITE = process.env.ORBIT_WRITE_SCHEMA === '1';

describe('the JSON Schema of an orbit file', () => {
  let t: TestApp;
  let served: Record<string, unknown>;

  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false });
    served = (await request(t.app.getHttpServer()).get('/schemas/orbit-file.json').expect(200)).body as Record<
      string,
      unknown
    >;
    if (WRITE) writeFileSync(SCHEMA_FILE, `${JSON.stringify(served, null, 2)}\n`);
  });
  afterAll(() => t.close());

  it('is served without a token and is the file published in the repo', () => {
    expect(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'))).toEqual(served);
  });

  it("validates the example file, and knows the API's fields, enums and ranges", () => {
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(served);
    expect(validate(parse(readFileSync(EXAMPLE_FILE, 'utf8')))).toBe(true);
    const bad = { jobs: { a: { command: 'x', cronExpression: '@daily', concurrencyPolicy: 'SOMETIMES', colour: 1 } } };
    expect(validate(bad)).toBe(false);
    expect(validate.errors?.map((e) => `${e.instancePath} ${e.message}`)).toEqual(
      expect.arrayContaining([
        '/jobs/a must NOT have additional properties',
        '/jobs/a/concurrencyPolicy must be equal to one of the allowed values',
      ]),
    );
    expect(validate({ jobs: { a: { command: 'x' } } })).toBe(false); // cronExpression is required
    expect(validate({ jobs: { a: { command: 'x', cronExpression: '@daily', maxRetries: 101 } } })).toBe(false);
  });
});
