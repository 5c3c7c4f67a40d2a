import type { components } from '../../web/src/api/openapi.js';

/**
 * A request or response body as the API's OpenAPI document describes it: `Schema<'JobResponse'>`.
 * The types are the dashboard's, written from `/docs-json` by `npm run generate:api` (a test fails
 * while they drift), so a test that sends or reads a body the API no longer has stops compiling.
 */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
