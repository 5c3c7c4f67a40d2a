// The module graph of src/ (see docs/architecture.md): each top-level folder of src/ is a
// module, and MODULE_GRAPH is the one place that says which modules each may import. The lint
// rule (eslint-plugin-boundaries) is derived from it; the files directly in src/ are the
// composition root, which may import every module and which no module imports.
import boundaries from 'eslint-plugin-boundaries';

/** Module → the modules it may import (directly). Must stay acyclic: the rule checks. */
export const MODULE_GRAPH = {
  shared: [],
  config: [],
  auth: ['shared', 'config'],
  audit: ['shared'],
  workers: ['shared', 'config'],
  jobs: ['shared'],
  executions: ['shared', 'config', 'jobs', 'workers', 'audit'],
  events: ['shared', 'config'],
  observability: ['shared', 'config', 'executions'],
  runtime: ['shared', 'config', 'jobs', 'executions', 'events', 'workers'],
  postgres: ['shared', 'config'],
  dashboard: ['shared'],
  alerts: ['shared', 'config', 'jobs', 'executions', 'events'],
  apply: ['shared', 'jobs', 'alerts'],
  cli: ['shared'],
  timeline: ['shared', 'jobs', 'executions', 'events'],
};

/** Every module that reaches `target` through the graph, each with its path there. */
function dependentsOf(graph, target) {
  const paths = new Map();
  const visit = (module, path) => {
    for (const [from, to] of Object.entries(graph)) {
      if (!to.includes(module) || paths.has(from) || from === target) continue;
      paths.set(from, [from, ...path]);
      visit(from, [from, ...path]);
    }
  };
  visit(target, [target]);
  return paths;
}

/** Throws, naming it, when the table has a cycle or an arrow to a module it does not list. */
export function checkGraph(graph) {
  for (const [module, allowed] of Object.entries(graph)) {
    for (const to of allowed) {
      if (!(to in graph)) throw new Error(`MODULE_GRAPH: ${module} → ${to}, but ${to} is not a module of the graph`);
    }
    const back = allowed.find((to) => to === module || dependentsOf(graph, module).has(to));
    if (back !== undefined) {
      const cycle = back === module ? [module, module] : [module, ...dependentsOf(graph, module).get(back)];
      throw new Error(`MODULE_GRAPH has a cycle: ${cycle.join(' → ')}`);
    }
  }
  return graph;
}

const toModules = (names) => ({ to: { element: { type: 'module', captured: { name: names } } } });
const list = (names) => (names.length > 0 ? names.join(', ') : 'no other module');

/**
 * The policies, for each module: an import of another module is refused with the arrows it
 * may use; one that would close a cycle says so, with the way back; the allowed ones pass.
 * eslint-plugin-boundaries applies the last policy that matches.
 */
function policies(graph) {
  return Object.entries(checkGraph(graph)).flatMap(([from, allowed]) => {
    const origin = { element: { type: 'module', captured: { name: from } } };
    const back = dependentsOf(graph, from);
    return [
      {
        from: origin,
        disallow: { to: { element: { type: 'module' } } },
        message:
          `${from} may not import {{to.element.captured.name}}: it is not an arrow of the module graph ` +
          `(${from} → ${list(allowed)}; MODULE_GRAPH in eslint.module-graph.js)`,
      },
      {
        from: origin,
        disallow: { to: { element: { type: 'root' } } },
        message: `${from} may not import the composition root (the files directly in src/): no module does`,
      },
      ...(allowed.length > 0 ? [{ from: origin, allow: toModules(allowed) }] : []),
      ...[...back].map(([to, path]) => ({
        from: origin,
        disallow: toModules(to),
        message: `${from} may not import ${to}: that closes a module cycle (${[from, ...path].join(' → ')})`,
      })),
    ];
  });
}

/**
 * The flat-config block that enforces `graph` on the src/ folder of `root` (this project by default).
 * @returns {import('eslint').Linter.Config}
 */
export function moduleBoundaries(graph = MODULE_GRAPH, root = import.meta.dirname) {
  return {
    files: ['src/**/*.{ts,js,cjs}'],
    plugins: { boundaries },
    settings: {
      'boundaries/root-path': root,
      'import/resolver': { typescript: true },
      'boundaries/elements': [
        { type: 'module', pattern: 'src/*', partialMatch: false, capture: ['name'] },
        { type: 'root', pattern: 'src', partialMatch: false },
      ],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          message:
            'src/{{from.element.captured.name}} is not a module of the graph: place it in MODULE_GRAPH ' +
            '(eslint.module-graph.js) with the modules it may import',
          policies: [
            { from: { element: { type: 'root' } }, allow: { to: { element: { type: 'module' } } } },
            ...policies(graph),
          ],
        },
      ],
    },
  };
}
