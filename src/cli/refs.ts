import { type ApiClient, CliError } from './api-client.js';

export interface Job {
  id: string;
  name: string;
  /** The team that owns it (null: a deleted job whose team is gone). */
  team: string | null;
  [field: string]: unknown;
}

export interface Execution {
  id: string;
  jobId: string;
  status: string;
  exitCode: number | null;
  errorMessage: string | null;
  createdAt: string;
  [field: string]: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Where a UUID has its dashes. */
const DASHES = new Set([8, 13, 18, 23]);
/** How many of the runs a prefix matches an ambiguity lists. */
const CANDIDATES_SHOWN = 10;

/** The short form of an id, as the dashboard and the tables show it. */
export const shortId = (id: string): string => id.slice(0, 8);

const hexOf = (prefix: string) => prefix.replace(/-/g, '').toLowerCase();

/** The start of an id as typed, at least 4 hex digits (dashes where a UUID has them): the dashboard's short ids. */
function isIdPrefix(ref: string): boolean {
  if (ref.length < 4 || ref.length > 36) return false;
  return [...ref].every((char, at) => (DASHES.has(at) ? char === '-' : /[0-9a-f]/i.test(char)));
}

/** The one item whose id begins with `ref`, as git takes a commit's prefix; several are listed. */
function unique<T extends { id: string }>(kind: string, ref: string, matches: T[], describe: (item: T) => string): T {
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new CliError(`There is no ${kind} whose id begins with '${ref}'`, 404);
  const lines = matches.slice(0, CANDIDATES_SHOWN).map((item) => `\n  ${item.id}  ${describe(item)}`);
  const more = matches.length > CANDIDATES_SHOWN ? `\n  …` : '';
  throw new CliError(`The id prefix '${ref}' is ambiguous; it begins the ids of:${lines.join('')}${more}`);
}

/** A job by its exact name, its id, or the start of its id. */
export async function findJob(api: ApiClient, ref: string): Promise<Job> {
  if (UUID.test(ref)) return api.get<Job>(`/jobs/${ref}`);
  const named = (await api.all<Job>('/jobs', { name: ref })).find((candidate) => candidate.name === ref);
  if (named) return named;
  if (!isIdPrefix(ref)) throw new CliError(`There is no job named '${ref}'`, 404);
  const matches = (await api.all<Job>('/jobs')).filter((job) => job.id.startsWith(ref.toLowerCase()));
  if (matches.length === 0) throw new CliError(`There is no job named '${ref}', nor one whose id begins so`, 404);
  return unique('job', ref, matches, (job) => job.name);
}

/** A run's full id, from itself or from the start of it (the API looks the prefix up). */
export async function runId(api: ApiClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  if (!isIdPrefix(ref)) {
    throw new CliError(`'${ref}' is not a run's id, nor the start of one (at least 4 hex digits)`);
  }
  const { items } = await api.get<{ items: Execution[] }>('/executions', {
    idPrefix: hexOf(ref),
    limit: CANDIDATES_SHOWN + 1,
  });
  return unique('run', ref, items, (run) => `${run.status}, created ${run.createdAt}`).id;
}

/** A token's full id, from itself or from the start of it. */
export async function tokenId(api: ApiClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const tokens = await api.all<{ id: string; name: string; role: string }>('/tokens');
  return unique(
    'token',
    ref,
    tokens.filter((token) => token.id.startsWith(ref.toLowerCase())),
    (token) => `${token.name} (${token.role})`,
  ).id;
}

/**
 * The names of the jobs these rows name by `jobId`, one request per job; a job deleted since (its
 * runs and events stay) shows as its short id.
 */
export async function jobNames(
  api: ApiClient,
  rows: readonly { jobId: string | null }[],
): Promise<Map<string, string>> {
  const ids = [...new Set(rows.map((row) => row.jobId).filter((id): id is string => id !== null))];
  const named = await Promise.all(
    ids.map(async (id): Promise<[string, string]> => {
      try {
        return [id, (await api.get<Job>(`/jobs/${id}`)).name];
      } catch (error) {
        if (error instanceof CliError && error.status === 404) return [id, `${shortId(id)} (deleted)`];
        throw error;
      }
    }),
  );
  return new Map(named);
}
