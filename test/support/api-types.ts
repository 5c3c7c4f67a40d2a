import type { components, paths } from '../../web/src/api/openapi.js';

/**
 * A request or response body as the API's OpenAPI document describes it: `Schema<'JobResponse'>`.
 * The types are the dashboard's, written from `/docs-json` by `npm run generate:api` (a test fails
 * while they drift), so a test that sends or reads a body the API no longer has stops compiling.
 */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The query parameters of an endpoint, from the same document: `Query<'/jobs', 'get'>`. */
export type Query<
  Path extends keyof paths,
  Method extends 'get' | 'post' | 'patch' | 'put' | 'delete',
> = paths[Path][Method] extends { parameters: { query?: infer Parameters } } ? NonNullable<Parameters> : never;

/** What start, succeed, fail and cancel are sent (cancel and start take an empty body). */
export type ActionBody = Schema<'SucceedDto'> | Schema<'FailDto'> | Record<string, never>;
