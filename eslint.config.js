// ESLint 10 flat config: typescript-eslint's type-aware rules, the layer boundaries from
// ARCHITECTURE.md (arrows point inward: domain <- application <- infrastructure / http), and the
// module graph of src/ (eslint.module-graph.js).
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { moduleBoundaries } from './eslint.module-graph.js';

/** A relative import of anything inside a folder with one of these names. */
const folders = (...names) => `^\\.{1,2}/(.*/)?(${names.join('|')})(/|$)`;

const noTestImports = {
  regex: '^(\\.\\./)+test/',
  message: 'Production code must not depend on test/ (move the shared piece into src/).',
};
/** The one file that may import the migrations: their registry. */
const MIGRATION_REGISTRY = 'src/postgres/data-source-options.ts';
const noMigrationImports = {
  regex: '^(\\.\\./)+migrations/',
  message: `A migration records what already ran: nothing but its registry (${MIGRATION_REGISTRY}) imports it; a runtime expression that must match one is compared with the database in a test.`,
};
const noPersistenceOrProcesses = {
  regex: '^(typeorm|pg)(/|$)|^(node:)?child_process$',
  message: 'TypeORM, pg and child processes belong in infrastructure/ behind a port (an abstract class).',
};

/**
 * What each layer may not import. Flat config replaces a rule's options rather than merging
 * them, so every block lists all the patterns that apply to its files (the src-wide ones too).
 * Specs beside the code keep their layer's boundaries but may use the helpers in test/.
 */
const layers = [
  { dir: 'src/**', patterns: [] },
  {
    dir: 'src/**/application/**',
    patterns: [
      noPersistenceOrProcesses,
      {
        regex: folders('infrastructure', 'http'),
        message: 'application/ may not depend on infrastructure/ or http/: depend on a port instead.',
      },
    ],
  },
  {
    dir: 'src/**/domain/**',
    patterns: [
      noPersistenceOrProcesses,
      { regex: '^@nestjs/', message: 'domain/ is plain TypeScript: no NestJS.' },
      {
        regex: folders('infrastructure', 'http', 'application'),
        message: 'domain/ depends on nothing outside the domain (no application/, infrastructure/ or http/).',
      },
    ],
  },
];
const restrictImports = (patterns) => (patterns.length > 0 ? ['error', { patterns }] : 'off');
const layerBoundaries = [
  ...layers.flatMap(({ dir, patterns }) => [
    {
      files: [`${dir}/*.ts`],
      ignores: ['**/*.spec.ts', MIGRATION_REGISTRY],
      rules: { 'no-restricted-imports': restrictImports([noTestImports, noMigrationImports, ...patterns]) },
    },
    {
      files: [`${dir}/*.spec.ts`],
      rules: { 'no-restricted-imports': restrictImports([noMigrationImports, ...patterns]) },
    },
  ]),
  { files: [MIGRATION_REGISTRY], rules: { 'no-restricted-imports': restrictImports([noTestImports]) } },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([noMigrationImports]) },
  },
  {
    // literal SQL only: what an installation ran must not change when a shared constant does
    files: ['migrations/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictImports([
        { regex: '^(?!typeorm$)', message: 'A migration is self-contained: it imports nothing but typeorm.' },
      ]),
    },
  },
];

export default defineConfig([
  globalIgnores(['dist/', 'coverage/', '.orbit/', 'bench/results/', 'web/src/api/openapi.d.ts']),

  js.configs.recommended,

  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: globals.node,
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // A promise nobody awaits must say so: `void promise`.
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
      // Nest modules are decorated classes that are empty or hold only a static forRoot().
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true }],
      // Response DTOs expose static factories meant for `items.map(JobResponse.from)`.
      '@typescript-eslint/unbound-method': ['error', { ignoreStatic: true }],
    },
  },

  ...layerBoundaries,

  moduleBoundaries(),

  {
    // class-transformer hands @Transform(({ value }) => ...) the raw query/body value as `any`.
    files: ['src/**/dto/**/*.ts', 'src/**/*.dto.ts', 'src/**/*.query.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },

  {
    // supertest bodies and jest mocks are `any` by nature; expect(obj.method) is not a call.
    files: ['test/**/*.ts', 'src/**/*.spec.ts'],
    languageOptions: { globals: globals.jest },
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },

  {
    // The dashboard runs in the browser and reaches Orbit through the public REST API only.
    files: ['web/**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: globals.browser,
    },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(src|test)/',
              message: 'The dashboard talks to Orbit through the REST API only (web/src/api/client.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['web/vite.config.ts'],
    languageOptions: { globals: globals.node },
  },

  {
    // Plain JavaScript (config files, CommonJS helpers): no type information.
    files: ['**/*.{js,cjs,mjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
]);
