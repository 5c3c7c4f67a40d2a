/** The tag as Intl writes it, or undefined when Intl refuses it ("Invalid language tag"). */
function accepted(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/**
 * A POSIX locale name (`de_DE.UTF-8@euro`, or `en-US@posix`, which Chromium reports on a Linux
 * box with LANG=C) as the language tag it names: the language and region, nothing after.
 */
function fromPosix(tag: string): string {
  return tag.replace(/[.@].*$/, '').replace(/_/g, '-');
}

/**
 * The locales to format in: each of the browser's languages that Intl accepts, in the browser's
 * order (a POSIX name read as the tag it names, a tag it still refuses dropped), then the page's
 * own language. A refused tag throws in every Intl constructor that is given it, so none may pass.
 */
export function usableLocales(wanted: readonly string[], pageLanguage: string): string[] {
  const usable = [...wanted, pageLanguage].flatMap((tag) => accepted(tag) ?? accepted(fromPosix(tag)) ?? []);
  return [...new Set(usable)];
}
