import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './openapi';

type Schemas = components['schemas'];
export type Job = Schemas['JobResponse'];
export type JobInput = Schemas['CreateJobDto'];
export type Execution = Schemas['ExecutionResponse'];
export type ExecutionOutput = Schemas['ExecutionOutputResponse'];
export type Worker = Schemas['WorkerResponse'];
export type Token = Schemas['TokenResponse'];
export type CreatedToken = Schemas['CreatedTokenResponse'];
export type AuditEvent = Schemas['AuditEventResponse'];
export type Me = Schemas['MeResponse'];
export type OrbitEvent = Schemas['EventResponse'];
type ErrorBody = Schemas['ErrorResponseDto'];
export type Role = 'viewer' | 'operator' | 'admin';
export type ExecutionStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

/** One thing the API refused, with the path of the request field it is about, if it names one. */
export interface Mistake {
  field?: string;
  message: string;
}

/**
 * An answer other than 2xx, with the API's own message (`{statusCode, message, error}`) and
 * each of its mistakes with its field (the body's `errors`, or its `field` for the whole message).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly mistakes: readonly Mistake[] = [{ message }],
  ) {
    super(message);
  }
}

function mistakesOf(body: Partial<ErrorBody>, message: string): Mistake[] {
  if (body.errors && body.errors.length > 0) return body.errors;
  return [typeof body.field === 'string' ? { field: body.field, message } : { message }];
}

let bearer: string | null = null;
let onRefused: () => void = () => undefined;
const tokenWatchers = new Set<(token: string | null) => void>();

/**
 * The token every request carries from now on (null: none), and what to do when the API refuses
 * it. Watchers hear of a change of token only, not of a new `refused` for the same one.
 */
export function setToken(token: string | null, refused: () => void = () => undefined): void {
  onRefused = refused;
  if (token === bearer) return;
  bearer = token;
  for (const watcher of tokenWatchers) watcher(token);
}

/** The token now (for the event stream, which is not read through openapi-fetch). */
export function currentToken(): string | null {
  return bearer;
}

/** Calls `watcher` on every change of token (sign in, sign out, a refused token forgotten). */
export function watchToken(watcher: (token: string | null) => void): void {
  tokenWatchers.add(watcher);
}

/** The API answered 401 to the current token. */
export function tokenRefused(): void {
  if (bearer) onRefused();
}

const authorize: Middleware = {
  onRequest({ request }) {
    if (bearer) request.headers.set('Authorization', `Bearer ${bearer}`);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) tokenRefused();
    return response;
  },
};

/** The public REST API, typed from Orbit's own OpenAPI document (web/src/api/openapi.d.ts). */
export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(authorize);

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's body, or an ApiError with the API's message. */
export async function ok<T>(answer: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await answer;
  if (!response.ok) {
    const body = (error ?? {}) as Partial<ErrorBody>;
    const message = typeof body.message === 'string' ? body.message : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message, mistakesOf(body, message));
  }
  return data as T;
}

export const ROLES: readonly Role[] = ['viewer', 'operator', 'admin'];

export function roleIncludes(held: string, needed: Role): boolean {
  return ROLES.indexOf(held as Role) >= ROLES.indexOf(needed);
}
