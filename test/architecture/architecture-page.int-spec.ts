import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { MODULE_GRAPH } from '../../eslint.module-graph.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGE = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
const GRAPH: Record<string, readonly string[]> = MODULE_GRAPH;

const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The page's module table: module → the modules its "May import" cell names. */
function pageTable(): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const line of PAGE.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const module = /^`(\w+)`$/.exec(cells[1] ?? '')?.[1];
    if (module === undefined || cells.length < 5) continue;
    if (table.has(module)) throw new Error(`docs/architecture.md lists ${module} twice`);
    const cell = cells[3] ?? '';
    const imports = cell === 'nothing' ? [] : cell.split(',').map((name) => name.trim().replace(/`/g, ''));
    table.set(module, imports);
  }
  return table;
}

/** The page's drawing of the rows: module → its row number. */
function pageRows(): Map<string, number> {
  const drawing = /```\n((?:\d+ .*\n)+)```/.exec(PAGE)?.[1] ?? '';
  const rows = new Map<string, number>();
  for (const line of drawing.trim().split('\n')) {
    const [row, ...modules] = line.trim().split(/\s+/);
    for (const module of modules) rows.set(module, Number(row));
  }
  return rows;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|cjs)$/.test(entry.name) && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The arrows the code has: module → the other modules its files import. */
function importedModules(): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>();
  for (const module of folders) {
    const used = new Set<string>();
    for (const file of sourceFiles(join(ROOT, 'src', module))) {
      for (const [, specifier = ''] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
        const target = relative(join(ROOT, 'src'), resolve(dirname(file), specifier)).split(sep)[0] ?? '';
        if (target !== module && folders.includes(target)) used.add(target);
      }
    }
    arrows.set(module, used);
  }
  return arrows;
}

const sorted = (names: Iterable<string>) => [...names].sort();

describe('the module graph, the folder tree and the architecture page say the same thing', () => {
  it('each folder of src/ is a module of the graph, of the page table and of its drawing, and nothing else is', () => {
    expect(sorted(Object.keys(GRAPH))).toEqual(sorted(folders));
    expect(sorted(pageTable().keys())).toEqual(sorted(folders));
    expect(sorted(pageRows().keys())).toEqual(sorted(folders));
  });

  it('each folder of test/ is a module of src/ or one of the few the page names for the whole', () => {
    const whole = ['architecture', 'app', 'support', 'dashboard', 'docs', 'reliability'];
    const tests = readdirSync(join(ROOT, 'test'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    const strays = tests.map((entry) => entry.name).filter((name) => !folders.includes(name) && !whole.includes(name));
    expect(strays).toEqual([]);
    for (const name of whole) expect(PAGE).toContain(`\`test/${name}/\``);
  });

  it("the page table's arrows are the graph's", () => {
    const table = Object.fromEntries([...pageTable()].map(([module, imports]) => [module, sorted(imports)]));
    const graph = Object.fromEntries(Object.entries(GRAPH).map(([module, imports]) => [module, sorted(imports)]));
    expect(table).toEqual(graph);
  });

  it('every arrow of the graph is one the code uses (an arrow nothing needs is removed)', () => {
    const used = importedModules();
    const unused = Object.entries(GRAPH).flatMap(([module, imports]) =>
      imports.filter((to) => !used.get(module)?.has(to)).map((to) => `${module} → ${to}`),
    );
    expect(unused).toEqual([]);
  });

  it('the drawing puts each module one row above the highest module it imports', () => {
    const rows = pageRows();
    const misplaced = Object.entries(GRAPH)
      .map(([module, imports]) => ({
        module,
        row: rows.get(module),
        expected: Math.max(-1, ...imports.map((to) => rows.get(to) ?? 0)) + 1,
      }))
      .filter(({ row, expected }) => row !== expected)
      .map(({ module, row, expected }) => `${module} is drawn on row ${row}, belongs on row ${expected}`);
    expect(misplaced).toEqual([]);
  });
});
