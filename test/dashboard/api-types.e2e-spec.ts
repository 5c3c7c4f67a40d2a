import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import { jsonSchemaOf } from '../../src/apply/http/orbit-file-schema.js';
import { createTestApp, TestApp } from '../support/test-app.js';

/** The dashboard's client types, generated from the app's own Swagger document. */
const TYPES_FILE = new URL('../../web/src/api/openapi.d.ts', import.meta.url).pathname;
const CLI = new URL('../../node_modules/openapi-typescript/bin/cli.js', import.meta.url).pathname;
/** The rules of a job as the API publishes them, which the job form checks before it sends a job. */
const JOB_SCHEMA_FILE = new URL('../../web/src/api/create-job.schema.json', import.meta.url).pathname;
/** `npm run generate:api` sets it: write the file instead of comparing. */
const WRITE = process.env.ORBIT_WRITE_API_TYPES === '1';

/** What openapi-typescript makes of the document the app serves at /docs-json. */
async function generate(document: unknown): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'orbit-openapi-'));
  try {
    const input = join(dir, 'openapi.json');
    writeFileSync(input, JSON.stringify(document));
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, input, '--default-non-nullable', 'false'], {
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the dashboard's API client", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const document = async () =>
    (await request(t.app.getHttpServer()).get('/docs-json').expect(200)).body as OpenAPIObject;

  it('is typed from the API as it is (run `npm run generate:api` after changing the API)', async () => {
    const generated = await generate(await document());
    if (WRITE) writeFileSync(TYPES_FILE, generated);
    expect(readFileSync(TYPES_FILE, 'utf8')).toBe(generated);
  });

  it("checks a job by the API's published schema of POST /jobs as it is", async () => {
    const generated = `${JSON.stringify(jsonSchemaOf(await document(), 'CreateJobDto'), null, 2)}\n`;
    if (WRITE) writeFileSync(JOB_SCHEMA_FILE, generated);
    expect(readFileSync(JOB_SCHEMA_FILE, 'utf8')).toBe(generated);
  });
});
