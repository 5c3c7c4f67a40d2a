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

/** The credential of a person signed in through the issuer: the browser's session cookie, sent by itself. */
export const COOKIE_SESSION = Symbol('cookie session');
export type Credential = string | typeof COOKIE_SESSION;

let credential: Credential | null = null;
let onRefused: () => void = () => undefined;
const tokenWatchers = new Set<(credential: Credential | null) => void>();

/**
 * The credential every request carries from now on (a token, the session cookie, or null: none),
 * and what to do when the API refuses it. Watchers hear of a change of credential only, not of
 * a new `refused` for the same one.
 */
export function setToken(token: Credential | null, refused: () => void = () => undefined): void {
  onRefused = refused;
  if (token === credential) return;
  credential = token;
  for (const watcher of tokenWatchers) watcher(token);
}

/** The credential now (for the event stream, which is not read through openapi-fetch). */
export function currentToken(): Credential | null {
  return credential;
}

/** The header a request sends its credential in (none for the session cookie, which the browser sends). */
export function authHeaders(): Record<string, string> {
  return typeof credential === 'string' ? { Authorization: `Bearer ${credential}` } : {};
}

/** Calls `watcher` on every change of credential (sign in, sign out, a refused one forgotten). */
export function watchToken(watcher: (credential: Credential | null) => void): void {
  tokenWatchers.add(watcher);
}

/** The API answered 401 to the current credential. */
export function tokenRefused(): void {
  if (credential) onRefused();
}

const authorize: Middleware = {
  onRequest({ request }) {
    for (const [name, value] of Object.entries(authHeaders())) request.headers.set(name, value);
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

export function roleIncludes(held: string | null, needed: Role): boolean {
  return held !== null && ROLES.indexOf(held as Role) >= ROLES.indexOf(needed);
}
