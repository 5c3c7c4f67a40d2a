import { ConfigError, loadConfig } from './orbit-config.js';

describe('loadConfig', () => {
  it('falls back to the defaults', () => {
    const config = loadConfig({}, []);
    expect(config).toMatchObject({
      role: 'all',
      host: '127.0.0.1',
      port: 3000,
      databaseUrl: undefined,
      dbPoolSize: 10,
      workerConcurrency: 4,
      leaseSeconds: 30,
      heartbeatSeconds: 10,
      scheduleLeadMs: 500,
      rateLimitPerMinute: 1200,
      corsOrigins: [],
      logLevel: 'info',
    });
  });

  it('reads the role from the first argument before ORBIT_ROLE, and the numbers from the environment', () => {
    const config = loadConfig(
      { ORBIT_ROLE: 'api', ORBIT_DB_POOL_SIZE: '25', ORBIT_WORKER_CONCURRENCY: ' 32 ', LOG_LEVEL: 'DEBUG' },
      ['--inspect', 'worker'],
    );
    expect(config).toMatchObject({ role: 'worker', dbPoolSize: 25, workerConcurrency: 32, logLevel: 'debug' });
  });

  it('names every bad setting at once', () => {
    const load = () =>
      loadConfig(
        {
          PORT: 'http',
          ORBIT_DB_POOL_SIZE: '3',
          ORBIT_WORKER_CONCURRENCY: '1.5',
          DATABASE_URL: 'mysql://x',
          LOG_LEVEL: 'loud',
          ORBIT_ADMIN_TOKEN: 'short',
        },
        ['everything'],
      );
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(
      [
        'Invalid configuration:',
        "  - the role must be one of all, api, worker (argument or ORBIT_ROLE), got 'everything'",
        '  - DATABASE_URL must be a postgres:// or postgresql:// URL',
        "  - PORT must be an integer from 0 to 65535, got 'http'",
        "  - ORBIT_DB_POOL_SIZE must be an integer from 4 to 1000, got '3'",
        "  - ORBIT_WORKER_CONCURRENCY must be an integer from 1 to 1024, got '1.5'",
        "  - LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got 'loud'",
        '  - ORBIT_ADMIN_TOKEN must be at least 24 characters (use a long random secret)',
      ].join('\n'),
    );
  });

  it('refuses a heartbeat that is not shorter than the lease, and a backoff base above its maximum', () => {
    expect(() => loadConfig({ ORBIT_LEASE_SECONDS: '10', ORBIT_HEARTBEAT_SECONDS: '10' }, [])).toThrow(
      'ORBIT_HEARTBEAT_SECONDS (10) must be less than ORBIT_LEASE_SECONDS (10)',
    );
    expect(() => loadConfig({ ORBIT_RETRY_BACKOFF_BASE_MS: '2000', ORBIT_RETRY_BACKOFF_MAX_MS: '1000' }, [])).toThrow(
      'ORBIT_RETRY_BACKOFF_BASE_MS must not exceed ORBIT_RETRY_BACKOFF_MAX_MS',
    );
  });
});
