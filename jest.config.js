/** ESM project: run through `node --experimental-vm-modules` (see package.json "test"). */
const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
};

/** The tests that start commands, run once more with the Node spawner (the others use the native launcher). */
const THROUGH_EITHER_LAUNCHER = [
  '<rootDir>/test/runtime/*.int-spec.ts',
  '!**/native-launcher.int-spec.ts',
  '<rootDir>/test/executions/runner-actions.e2e-spec.ts',
];

export default {
  projects: [
    {
      ...base,
      displayName: 'orbit',
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/web/src/**/*.spec.ts',
        '<rootDir>/test/**/*.int-spec.ts',
        '<rootDir>/test/**/*.e2e-spec.ts',
      ],
    },
    {
      ...base,
      displayName: 'node spawner',
      testMatch: THROUGH_EITHER_LAUNCHER,
      setupFiles: ['<rootDir>/test/support/node-spawner.ts'],
    },
  ],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  maxWorkers: 2,
  testTimeout: 30_000,
};
