/** The median and the 95th percentile of durations (ms), by nearest rank; null for none. */
export function durationQuantiles(durations: readonly number[]): { p50: number; p95: number } | null {
  if (durations.length === 0) return null;
  const sorted = [...durations].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
  return { p50: rank(0.5), p95: rank(0.95) };
}
