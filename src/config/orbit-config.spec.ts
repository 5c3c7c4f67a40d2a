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

  it('alerts: defaults, the public URL from the listen address, and the SMTP settings checked without echoing a password', () => {
    expect(loadConfig({}, [])).toMatchObject({
      publicUrl: 'http://127.0.0.1:3000',
      smtpUrl: undefined,
      smtpFrom: 'orbit@localhost',
      alertRetryHours: 24,
      alertsAllowPrivate: false,
    });
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '8080' }, []).publicUrl).toBe('http://localhost:8080');
    expect(
      loadConfig(
        {
          ORBIT_PUBLIC_URL: 'https://orbit.example.com/',
          ORBIT_SMTP_URL: 'smtps://u:p@mail.example.com',
          ORBIT_ALERTS_ALLOW_PRIVATE: 'TRUE',
        },
        [],
      ),
    ).toMatchObject({
      publicUrl: 'https://orbit.example.com',
      smtpUrl: 'smtps://u:p@mail.example.com',
      alertsAllowPrivate: true,
    });
    const load = () =>
      loadConfig(
        {
          ORBIT_SMTP_URL: 'http://user:hunter2@mail',
          ORBIT_SMTP_FROM: 'nobody',
          ORBIT_PUBLIC_URL: 'ftp://x',
          ORBIT_ALERTS_ALLOW_PRIVATE: 'yes',
          ORBIT_ALERT_RETRY_HOURS: '1000',
        },
        [],
      );
    expect(load).toThrow(ConfigError);
    const message = (() => {
      try {
        load();
      } catch (error) {
        return String(error);
      }
      return '';
    })();
    for (const name of [
      'ORBIT_SMTP_URL',
      'ORBIT_SMTP_FROM',
      'ORBIT_PUBLIC_URL',
      'ORBIT_ALERTS_ALLOW_PRIVATE',
      'ORBIT_ALERT_RETRY_HOURS',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).not.toContain('hunter2');
  });

  it('sign-in limits: a default of 20 failures a minute, no trusted proxy, and a proxy list of addresses and CIDR ranges', () => {
    expect(loadConfig({}, [])).toMatchObject({ signInFailuresPerMinute: 20, trustedProxies: [] });
    expect(
      loadConfig({ ORBIT_SIGN_IN_FAILURES_PER_MINUTE: '0', ORBIT_TRUSTED_PROXIES: ' 10.0.0.0/8, ::1 ,fd00::/8,' }, []),
    ).toMatchObject({ signInFailuresPerMinute: 0, trustedProxies: ['10.0.0.0/8', '::1', 'fd00::/8'] });
    expect(() => loadConfig({ ORBIT_TRUSTED_PROXIES: '10.0.0.0/8, proxy.internal, 10.0.0.0/33' }, [])).toThrow(
      "ORBIT_TRUSTED_PROXIES must be a comma-separated list of addresses and CIDR ranges, got 'proxy.internal', '10.0.0.0/33'",
    );
  });
});
