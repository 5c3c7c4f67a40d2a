import { setTimeout as sleep } from 'node:timers/promises';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Settings } from './settings.js';

/** Between two tries to open a stream again. */
const RECONNECT_DELAY_MS = 1_000;
/** Tries in a row that may fail before a stream is given up: about half a minute. */
const RECONNECT_TRIES = 30;

/** What a user without a token is told, instead of the API's "Missing bearer token". */
const NO_TOKEN =
  'No token: set ORBIT_TOKEN=<token>, or store one with `orbit login` ' +
  '(Orbit prints the first admin token when it first starts; `orbit tokens create` makes more)';

/** A refusal of the API, or an Orbit that cannot be reached: the message is what the user reads. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    /** The API's error body, when it sent JSON. */
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined>;

/** The REST API, as the one way the command line talks to Orbit. */
export class ApiClient {
  constructor(private readonly settings: Settings) {}

  get url(): string {
    return this.settings.url;
  }

  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.request<T>('GET', path, undefined, query);
  }
  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>('POST', path, body);
  }
  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, body);
  }
  delete(path: string): Promise<void> {
    return this.request<void>('DELETE', path);
  }

  /** Every item of a paged list, following nextCursor. */
  async all<T>(path: string, query: Query = {}): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.get<{ items: T[]; nextCursor: string | null }>(path, { ...query, limit: 100, cursor });
      items.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return items;
  }

  /** Server-sent events of `path`, each as it comes, until the server ends the stream. */
  private async *stream(path: string, query: Query = {}): AsyncGenerator<EventSourceMessage> {
    const response = await this.send('GET', path, undefined, query, 'text/event-stream');
    const pending: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => pending.push(event) });
    const decoder = new TextDecoder();
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      yield* pending.splice(0);
    }
  }

  /**
   * Server-sent events of `path` across lost connections, until the caller stops reading: when
   * the stream ends, or the connection drops or cannot be made (a node restarting, a proxy's
   * timeout), it is opened again a second later with the query `resume.query()` answers then;
   * `resume.reconnecting()` is told first. A refusal (4xx) is thrown at once, anything else after
   * RECONNECT_TRIES tries in a row that brought no event.
   */
  async *resumableStream(
    path: string,
    resume: { query: () => Query; reconnecting: () => void },
  ): AsyncGenerator<EventSourceMessage> {
    for (let failed = 0; ;) {
      let heard = false;
      let lastError: Error | null = null;
      try {
        for await (const message of this.stream(path, resume.query())) {
          heard = true;
          yield message;
        }
      } catch (error) {
        if (!transient(error)) throw error;
        lastError = error instanceof Error ? error : new Error(String(error));
      }
      failed = heard ? 0 : failed + 1;
      if (failed >= RECONNECT_TRIES) throw lastError ?? new CliError(`The stream ${path} kept ending at once`);
      resume.reconnecting();
      await sleep(RECONNECT_DELAY_MS);
    }
  }

  private async request<T>(method: string, path: string, body?: unknown, query: Query = {}): Promise<T> {
    const response = await this.send(method, path, body, query, 'application/json');
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  private async send(method: string, path: string, body: unknown, query: Query, accept: string): Promise<Response> {
    const url = new URL(this.settings.url + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { Accept: accept };
    if (this.settings.token) headers.Authorization = `Bearer ${this.settings.token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `Cannot reach Orbit at ${this.settings.url}: ${cause?.code ?? cause?.message ?? String(error)}`,
      );
    }
    if (response.status === 401 && !this.settings.token) throw new CliError(NO_TOKEN, 401);
    if (!response.ok) {
      const { message, body } = await refusal(response);
      throw new CliError(message, response.status, body);
    }
    return response;
  }
}

/** An Orbit that could not be reached, a connection that dropped, or a server error: worth another try. */
function transient(error: unknown): boolean {
  if (error instanceof CliError) return error.status === undefined || error.status >= 500;
  return true; // the body's stream broke off (undici: "terminated")
}

/** The API's own message (its error body), else the status line. */
async function refusal(response: Response): Promise<{ message: string; body?: Record<string, unknown> }> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (typeof body.message === 'string') return { message: body.message, body };
    if (Array.isArray(body.message)) return { message: body.message.join('; '), body };
  } catch {
    // not JSON: a proxy's page, say
  }
  return { message: `${response.status} ${response.statusText}${text ? `: ${text.slice(0, 200)}` : ''}` };
}
