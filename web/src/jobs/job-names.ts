import { api, ok } from '../api/client';

/** GET /jobs?ids= takes as many as a page holds. */
const MAX_IDS = 100;

/**
 * The names of the live jobs among `ids`, in one read: a list of runs names their jobs by them. A
 * deleted job (its runs stay readable) has none.
 */
export async function jobNames(ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const unique = [...new Set(ids)].slice(0, MAX_IDS);
  if (unique.length === 0) return new Map();
  const page = await ok(api.GET('/jobs', { params: { query: { ids: unique, limit: MAX_IDS } } }));
  return new Map(page.items.map((job) => [job.id, job.name]));
}
