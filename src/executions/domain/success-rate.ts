/**
 * The share of runs that succeeded among those that succeeded or failed, from 0 to 1; null when
 * there are none. A cancelled run is someone's decision, not an outcome of the job, so it does
 * not count either way.
 */
export function successRate(succeeded: number, failed: number): number | null {
  const decided = succeeded + failed;
  return decided === 0 ? null : succeeded / decided;
}
