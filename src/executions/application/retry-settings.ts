/** Backoff of automatic retries; provided from the process configuration. */
export abstract class RetrySettings {
  abstract readonly baseMs: number;
  abstract readonly maxMs: number;
}
