import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const WEB_SRC = join(import.meta.dirname, '..');
/** Where dates and numbers are written, and where the browser's languages are read. */
const FORMATTERS = new Set(['shared/format.ts', 'shared/locales.ts']);

/**
 * Each use of Intl or of a toLocale* method (and localeCompare) in the source: each one outside
 * the formatter writes in a locale of its own (or in one Intl refuses, which throws).
 */
function localeUses(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const name =
      ts.isIdentifier(node) && node.text === 'Intl'
        ? 'Intl'
        : ts.isPropertyAccessExpression(node) && /^(toLocale|localeCompare$)/.test(node.name.text)
          ? node.name.text
          : undefined;
    if (name) found.push(`${fileName}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${name}`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.(d|spec)\.ts$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the dashboard writes dates and numbers through web/src/shared/format.ts only', () => {
  it('no other module of web/src uses Intl or toLocale*', () => {
    const files = sources(WEB_SRC).map((path) => relative(WEB_SRC, path));
    expect(files).toEqual(expect.arrayContaining(['shared/format.ts', 'shared/locales.ts', 'jobs/duration-plot.ts']));
    const outside = files
      .filter((file) => !FORMATTERS.has(file))
      .flatMap((file) => localeUses(file, readFileSync(join(WEB_SRC, file), 'utf8')));
    expect(outside).toEqual([]);
  });

  it('the check finds each kind of use, in code and in types, and not in text', () => {
    const source = [
      'const a = n.toLocaleString("en");',
      'const b = new Intl.NumberFormat().format(n);',
      'const c = when.toLocaleDateString();',
      'const d: Intl.DateTimeFormatOptions = {};',
      'const e = names.sort((x, y) => x.localeCompare(y));',
      'const f = "Intl and toLocaleString in words";',
    ].join('\n');
    expect(localeUses('sample.tsx', source)).toEqual([
      'sample.tsx:1 toLocaleString',
      'sample.tsx:2 Intl',
      'sample.tsx:3 toLocaleDateString',
      'sample.tsx:4 Intl',
      'sample.tsx:5 localeCompare',
    ]);
  });
});
