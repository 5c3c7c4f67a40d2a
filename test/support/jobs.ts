import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { JobsService } from '../../src/jobs/application/jobs.service.js';
import type { Job, NewJob } from '../../src/jobs/domain/job.js';
import type { Schema } from './api-types.js';
import type { TestApp } from './test-app.js';

/** A schedule that does not fire while a test runs: once a year, as the year turns. */
export const YEARLY = '0 0 1 1 *';

export type JobFields = Partial<Schema<'CreateJobDto'>>;

/** A unique name, a command and a yearly schedule: what every job of a test has unless it says otherwise. */
const basics = () => ({ name: `job-${randomUUID()}`, command: 'echo hello', cronExpression: YEARLY });

/** What POST /jobs is sent: a unique name, a command and a yearly schedule, with `fields` over them. */
export function jobBody(fields: JobFields = {}): Schema<'CreateJobDto'> {
  return { ...basics(), ...fields };
}

/** Creates a job through POST /jobs of `node` and answers it as the API does; a refusal fails the test with the answer. */
export async function createJob(node: TestApp, fields: JobFields = {}): Promise<Schema<'JobResponse'>> {
  const res = await request(node.app.getHttpServer()).post('/jobs').send(jobBody(fields));
  if (res.status !== 201) throw new Error(`POST /jobs answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as Schema<'JobResponse'>;
}

/**
 * createJob on the app a file makes in its beforeAll, with the file's own defaults (a schedule its
 * scheduler passes rely on, a command its worker runs) under each call's fields.
 */
export function jobCreator(
  node: () => TestApp,
  defaults: JobFields = {},
): (fields?: JobFields) => Promise<Schema<'JobResponse'>> {
  return (fields = {}) => createJob(node(), { ...defaults, ...fields });
}

/**
 * A domain Job stored through the jobs service, stamped by the app's clock: a unique name, a
 * command and a yearly schedule, with `fields` over them.
 */
export function storedJob(node: TestApp, fields: Partial<NewJob> = {}): Promise<Job> {
  return node.app.get(JobsService).create({ ...basics(), ...fields });
}
