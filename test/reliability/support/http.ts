// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are loosely typed JSON
export type Body = Record<string, any>;

export interface Reply {
  status: number;
  body: Body;
  /** How long the request took, in ms. */
  tookMs: number;
}

export interface JobFields {
  name: string;
  command: string;
  cronExpression: string;
  enabled?: boolean;
  maxRetries?: number;
  timeoutSeconds?: number;
  misfirePolicy?: 'RUN_ONCE' | 'SKIP';
  concurrencyPolicy?: 'ALLOW' | 'FORBID' | 'REPLACE';
}

/** The Orbit API of one node, over real HTTP (Node's fetch) with a bearer token. */
export class OrbitClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** Any request; network errors reject (the database-restart scenario counts them). */
  async request(method: string, path: string, body?: unknown): Promise<Reply> {
    const began = performance.now();
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    let parsed: Body;
    try {
      parsed = text ? (JSON.parse(text) as Body) : {};
    } catch {
      parsed = { raw: text };
    }
    return { status: response.status, body: parsed, tookMs: performance.now() - began };
  }

  /** A request that must answer `expected`; otherwise it throws with what came back. */
  async expect(expected: number, method: string, path: string, body?: unknown): Promise<Body> {
    const reply = await this.request(method, path, body);
    if (reply.status !== expected) {
      throw new Error(
        `${method} ${this.baseUrl}${path} answered ${reply.status}, expected ${expected}: ${JSON.stringify(reply.body)}`,
      );
    }
    return reply.body;
  }

  createJob(fields: JobFields): Promise<Body> {
    return this.expect(201, 'POST', '/jobs', fields);
  }

  updateJob(id: string, fields: Partial<JobFields>): Promise<Body> {
    return this.expect(200, 'PATCH', `/jobs/${id}`, fields);
  }

  trigger(jobId: string): Promise<Body> {
    return this.expect(201, 'POST', `/jobs/${jobId}/executions`);
  }
}
