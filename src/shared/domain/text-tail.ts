/**
 * What a stored output tail (the last bytes of a stream, bounded) adds to what was already
 * shown of it: the API's output stream sends only that, and the command line, reconnecting,
 * prints only that of the tail a new stream begins with.
 */

/**
 * Below this many characters an overlap between what was sent and the new tail could be chance
 * (a newline, a repeated prefix): the gap is reported instead of guessing.
 */
export const MIN_OVERLAP = 64;

/** U+FFFD: the tail is cut at a byte limit, so it may begin with the rest of a cut character. */
const REPLACEMENT = '\uFFFD';

/**
 * What is new in `tail` (the stored last bytes of a stream) after `sent` (the tail as it was
 * when last sent). Usually `tail` extends `sent`. Once older output is dropped to keep the
 * tail bounded, `tail` no longer starts with `sent`: then the new part follows the longest end
 * of `sent` that `tail` begins with. When there is no such overlap, output was lost between
 * two reads: `gap` is true and the whole tail counts as new.
 */
export function newText(sent: string, tail: string): { text: string; gap: boolean } {
  if (tail.startsWith(sent)) return { text: tail.slice(sent.length), gap: false };
  if (tail === '') return { text: '', gap: false };
  let skip = 0;
  while (skip < 3 && tail[skip] === REPLACEMENT) skip++;
  for (const start of skip > 0 ? [0, skip] : [0]) {
    const overlap = longestOverlap(sent, tail.slice(start));
    if (overlap >= Math.min(MIN_OVERLAP, sent.length)) return { text: tail.slice(start + overlap), gap: false };
  }
  return { text: tail, gap: true };
}

/** The length of the longest prefix of `next` that is a suffix of `previous` (Knuth–Morris–Pratt, linear). */
export function longestOverlap(previous: string, next: string): number {
  const pattern = next.slice(0, previous.length);
  if (pattern === '') return 0;
  const failure = new Int32Array(pattern.length);
  for (let i = 1, k = 0; i < pattern.length; i++) {
    while (k > 0 && pattern[i] !== pattern[k]) k = failure[k - 1]!;
    if (pattern[i] === pattern[k]) k++;
    failure[i] = k;
  }
  let matched = 0;
  for (let i = Math.max(0, previous.length - pattern.length); i < previous.length; i++) {
    while (matched > 0 && (matched === pattern.length || previous[i] !== pattern[matched])) {
      matched = failure[matched - 1]!;
    }
    if (previous[i] === pattern[matched]) matched++;
  }
  return matched;
}
