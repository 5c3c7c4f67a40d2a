/** ESM project: run through `node --experimental-vm-modules` (see package.json "test"). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testMatch: [
    '<rootDir>/src/**/*.spec.ts',
    '<rootDir>/web/src/**/*.spec.ts',
    '<rootDir>/test/**/*.int-spec.ts',
    '<rootDir>/test/**/*.e2e-spec.ts',
  ],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  maxWorkers: 2,
  testTimeout: 30_000,
};
