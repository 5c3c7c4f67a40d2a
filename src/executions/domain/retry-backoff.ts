/**
 * Delay before attempt `attempt + 1`: exponential in the attempt, capped, with "equal jitter"
 * (half fixed, half random) so that retries of many failures do not arrive together.
 */
export function retryDelayMs(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
