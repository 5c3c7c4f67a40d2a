import { closest, distance } from 'fastest-levenshtein';

/**
 * The known name a mistyped one most likely meant (`comand` → `command`), or undefined when none
 * is near enough to be worth saying: a third of the name's letters may differ, case aside.
 */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const lower = name.toLowerCase();
  const byLower = new Map(known.map((candidate) => [candidate.toLowerCase(), candidate]));
  const nearest = closest(lower, [...byLower.keys()]);
  return distance(lower, nearest) <= Math.max(1, Math.floor(name.length / 3)) ? byLower.get(nearest) : undefined;
}

/** ` (did you mean command?)`, or nothing. */
export function suggestion(name: string, known: readonly string[]): string {
  const meant = didYouMean(name, known);
  return meant === undefined ? '' : ` (did you mean ${meant}?)`;
}
