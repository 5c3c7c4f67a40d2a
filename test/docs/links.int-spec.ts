import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brokenLinks, markdownFiles } from './doc-links.js';

const ROOT = new URL('../../', import.meta.url).pathname;

describe('the links of the docs', () => {
  it('lead to files and headings that exist, and the paths they cite exist', () => {
    const files = markdownFiles(ROOT);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'bench/HISTORY.md']));
    expect(brokenLinks(ROOT, files)).toEqual([]);
  });
});

describe('the link checker', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'orbit-links-'));
    write('.gitignore', 'bench/results/\n');
    write('src/app.ts', '');
    write(
      'docs/guide.md',
      ['# The guide', '', '## Adding a `field`, step by step', '', '## Adding a `field`, step by step'].join('\n'),
    );
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('passes links, anchors (GitHub slugs, repeated headings numbered) and paths that exist', () => {
    write(
      'README.md',
      [
        '# Orbit',
        '',
        'See [the guide](docs/guide.md), [its steps](docs/guide.md#adding-a-field-step-by-step) and',
        '[again](docs/guide.md#adding-a-field-step-by-step-1), [the top](#orbit), [a site](https://example.com),',
        '`src/app.ts`, `src/app.ts:12`, `src/`, `src/**/*.spec.ts`, `bench/results/latest.json`.',
        '',
        '| a table | [a link](docs/guide.md#the-guide) `src/app.ts` |',
        '| ------- | ---------------------------------------------- |',
      ].join('\n'),
    );
    expect(brokenLinks(root, ['README.md', 'docs/guide.md'])).toEqual([]);
  });

  it('reports every broken link, anchor and path at once, each with its file and line', () => {
    write(
      'README.md',
      [
        '# Orbit',
        '',
        'A [missing page](docs/nowhere.md) and a [missing anchor](docs/guide.md#no-such-heading),',
        'a [missing anchor here](#nothing) and ![a picture](docs/screenshots/none.png);',
        '',
        '| in a table | `test/gone.int-spec.ts` |',
        '| ---------- | ----------------------- |',
        '',
        'and `migrations/1-Gone.ts` after a',
        'line break, and [outside](../elsewhere.md).',
      ].join('\n'),
    );
    expect(brokenLinks(root, ['README.md'])).toEqual([
      'README.md:3: link to docs/nowhere.md: docs/nowhere.md does not exist',
      'README.md:3: link to docs/guide.md#no-such-heading: docs/guide.md has no heading with the anchor #no-such-heading',
      'README.md:4: link to #nothing: README.md has no heading with the anchor #nothing',
      'README.md:4: link to docs/screenshots/none.png: docs/screenshots/none.png does not exist',
      'README.md:6: `test/gone.int-spec.ts` names a file that does not exist',
      'README.md:9: `migrations/1-Gone.ts` names a file that does not exist',
      'README.md:10: link to ../elsewhere.md: ../elsewhere.md does not exist',
    ]);
  });
});
