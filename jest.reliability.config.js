/**
 * The reliability suite (`npm run test:reliability`): real Orbit processes from the built
 * binary (dist/, so build first) on a PostgreSQL each file starts, stops and removes itself.
 * One file at a time: the scenarios measure timings and must not compete for the two cores.
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/test/reliability/**/*.rel-spec.ts'],
  maxWorkers: 1,
  testTimeout: 240_000,
  verbose: true,
};
