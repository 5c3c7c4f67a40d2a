import pixelmatch from 'pixelmatch';
import pngjs from 'pngjs';

/** How far a colour may move before its pixel counts as changed (pixelmatch's own default); anti-aliasing never counts. */
const COLOUR_THRESHOLD = 0.1;

export interface Comparison {
  /** The pixels that changed, or every pixel of the larger picture when the sizes differ. */
  changed: number;
  /** Their share of the picture. */
  share: number;
  /** A picture of where they are (the changed pixels in red over a faded copy); none when the sizes differ. Slow to encode: ask for it only for a failure. */
  diff?: () => Buffer;
  sizes: string;
}

/** Compares two PNG pictures pixel by pixel (byte-equal files, the common case, without decoding them). */
export function comparePictures(expected: Buffer, actual: Buffer): Comparison {
  if (expected.equals(actual)) return { changed: 0, share: 0, sizes: 'the same file' };
  const a = pngjs.PNG.sync.read(expected);
  const b = pngjs.PNG.sync.read(actual);
  const sizes = `${a.width}×${a.height} then ${b.width}×${b.height}`;
  if (a.width !== b.width || a.height !== b.height) {
    const all = Math.max(a.width * a.height, b.width * b.height);
    return { changed: all, share: 1, sizes };
  }
  const diff = new pngjs.PNG({ width: a.width, height: a.height });
  const changed = pixelmatch(a.data, b.data, diff.data, a.width, a.height, { threshold: COLOUR_THRESHOLD });
  return { changed, share: changed / (a.width * a.height), diff: () => pngjs.PNG.sync.write(diff), sizes };
}
