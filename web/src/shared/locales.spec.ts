import { usableLocales } from './locales.js';

describe('usableLocales', () => {
  it.each([
    [
      ['de-DE', 'en-US'],
      ['de-DE', 'en-US', 'en'],
    ],
    [['en-US@posix'], ['en-US', 'en']],
    [
      ['de_DE.UTF-8@euro', 'fr_FR'],
      ['de-DE', 'fr-FR', 'en'],
    ],
    [['C'], ['en']],
    [['C.UTF-8', 'not a tag', ''], ['en']],
    [
      ['EN-gb', 'en-GB'],
      ['en-GB', 'en'],
    ],
    [[], ['en']],
  ])('the browser’s %j, on a page in English, are formatted in %j', (wanted, expected) => {
    expect(usableLocales(wanted, 'en')).toEqual(expected);
  });

  it('a page without a usable language of its own leaves the runtime’s default after the browser’s', () => {
    expect(usableLocales(['sv-SE'], '')).toEqual(['sv-SE']);
    expect(usableLocales(['C'], '')).toEqual([]);
  });

  it('every locale it gives is one Intl takes', () => {
    for (const locale of usableLocales(['en-US@posix', 'de_AT.UTF-8', 'x@y', 'zh_Hant_TW'], 'en')) {
      expect(() => new Intl.DateTimeFormat(locale)).not.toThrow();
    }
  });
});
