import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, forgetSecretSettings, loadConfig, SECRET_SETTINGS } from './orbit-config.js';

const ROOT = 0;
const USER = 1000;

/** The message a load throws ('' when it does not). */
function refusal(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  return '';
}

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
          ORBIT_LAUNCHER: 'rust',
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
        "  - ORBIT_LAUNCHER must be one of auto, native, node, got 'rust'",
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

  describe('secrets given as files', () => {
    let dir: string;
    const file = (name: string, content: string) => {
      const path = join(dir, name);
      writeFileSync(path, content, { mode: 0o600 });
      return path;
    };
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'orbit-config-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('every secret setting is read from its _FILE, without the trailing line break', () => {
      const config = loadConfig(
        {
          DATABASE_URL_FILE: file('db', 'postgres://orbit:s3cret@db:5432/orbit\n'),
          ORBIT_ADMIN_TOKEN_FILE: file('token', 'file-admin-token-0123456789abcdef\r\n'),
          ORBIT_SMTP_URL_FILE: file('smtp', 'smtps://mailer:pw@mail.example.com'),
          ORBIT_OIDC_ISSUER: 'https://sso.example.com',
          ORBIT_OIDC_CLIENT_ID: 'orbit',
          ORBIT_OIDC_CLIENT_SECRET_FILE: file('oidc', 'client-secret\n'),
        },
        [],
      );
      expect(config).toMatchObject({
        databaseUrl: 'postgres://orbit:s3cret@db:5432/orbit',
        adminToken: 'file-admin-token-0123456789abcdef',
        smtpUrl: 'smtps://mailer:pw@mail.example.com',
        oidc: { clientSecret: 'client-secret' },
      });
      expect(SECRET_SETTINGS).toEqual([
        'DATABASE_URL',
        'ORBIT_ADMIN_TOKEN',
        'ORBIT_SMTP_URL',
        'ORBIT_OIDC_CLIENT_SECRET',
      ]);
    });

    it('a value read from a file is checked as the variable would be', () => {
      expect(refusal(() => loadConfig({ ORBIT_ADMIN_TOKEN_FILE: file('token', 'short\n') }, []))).toContain(
        'ORBIT_ADMIN_TOKEN must be at least 24 characters',
      );
    });

    it('a setting given both ways, a missing file and an empty one are refused together, naming each', () => {
      const message = refusal(() =>
        loadConfig(
          {
            ORBIT_ADMIN_TOKEN: 'env-admin-token-0123456789abcdef',
            ORBIT_ADMIN_TOKEN_FILE: file('token', 'file-admin-token-0123456789abcdef'),
            DATABASE_URL_FILE: join(dir, 'missing'),
            ORBIT_SMTP_URL_FILE: file('smtp', '\n'),
          },
          [],
        ),
      );
      expect(message).toBe(
        [
          'Invalid configuration:',
          `  - DATABASE_URL_FILE: cannot read ${join(dir, 'missing')} (ENOENT)`,
          '  - ORBIT_ADMIN_TOKEN and ORBIT_ADMIN_TOKEN_FILE are both set: set one of them',
          `  - ORBIT_SMTP_URL_FILE: ${join(dir, 'smtp')} is empty`,
        ].join('\n'),
      );
    });

    it('an empty variable beside its file counts as unset', () => {
      const token = 'file-admin-token-0123456789abcdef';
      expect(loadConfig({ ORBIT_ADMIN_TOKEN: '', ORBIT_ADMIN_TOKEN_FILE: file('token', token) }, []).adminToken).toBe(
        token,
      );
    });

    it('forgetSecretSettings removes the secrets and their files from the environment, and nothing else', () => {
      const env: Record<string, string | undefined> = {
        DATABASE_URL: 'postgres://orbit:s3cret@db/orbit',
        ORBIT_ADMIN_TOKEN_FILE: '/run/secrets/token',
        ORBIT_SMTP_URL: 'smtp://u:p@mail',
        ORBIT_SMTP_FROM: 'orbit@example.com',
        PATH: '/usr/bin',
      };
      forgetSecretSettings(env);
      expect(env).toEqual({ ORBIT_SMTP_FROM: 'orbit@example.com', PATH: '/usr/bin' });
    });
  });

  describe('the user commands run as', () => {
    it('as root: nobody unless ORBIT_COMMAND_USER names another (root included, when asked for)', () => {
      expect(loadConfig({}, [], ROOT).commandUser).toBe('nobody');
      expect(loadConfig({ ORBIT_COMMAND_USER: ' orbit-command ' }, [], ROOT).commandUser).toBe('orbit-command');
      expect(loadConfig({ ORBIT_COMMAND_USER: 'root' }, [], ROOT).commandUser).toBe('root');
    });

    it("as another user: Orbit's own, and ORBIT_COMMAND_USER is refused (only root can switch users)", () => {
      expect(loadConfig({}, [], USER).commandUser).toBeUndefined();
      expect(loadConfig({ ORBIT_COMMAND_USER: '' }, [], USER).commandUser).toBeUndefined();
      expect(refusal(() => loadConfig({ ORBIT_COMMAND_USER: 'nobody' }, [], USER))).toContain(
        'ORBIT_COMMAND_USER needs Orbit to run as root (it switches commands to that user)',
      );
    });

    it('ORBIT_RUN_AS_USER still works, with a deprecation warning; both names at once are refused', () => {
      const config = loadConfig({ ORBIT_RUN_AS_USER: 'daemon' }, [], ROOT);
      expect(config.commandUser).toBe('daemon');
      expect(config.warnings).toEqual(['ORBIT_RUN_AS_USER is deprecated: name it ORBIT_COMMAND_USER']);
      expect(loadConfig({}, [], ROOT).warnings).toEqual([]);
      expect(refusal(() => loadConfig({ ORBIT_RUN_AS_USER: 'nobody' }, [], USER))).toContain(
        'ORBIT_RUN_AS_USER needs Orbit to run as root',
      );
      expect(
        refusal(() => loadConfig({ ORBIT_RUN_AS_USER: 'daemon', ORBIT_COMMAND_USER: 'nobody' }, [], ROOT)),
      ).toContain('ORBIT_RUN_AS_USER is the old name of ORBIT_COMMAND_USER: set only ORBIT_COMMAND_USER');
    });
  });

  describe('people: the OIDC issuer, sessions and trusted headers', () => {
    it('none by default: tokens only', () => {
      expect(loadConfig({}, [])).toMatchObject({
        oidc: undefined,
        sessionIdleMinutes: 60,
        sessionMaxHours: 12,
        trustedUserHeader: undefined,
        adminGroups: [],
      });
    });

    it('an issuer with its client; the groups claim, the name and the admin groups', () => {
      const config = loadConfig(
        {
          ORBIT_OIDC_ISSUER: 'https://sso.example.com/realms/acme',
          ORBIT_OIDC_CLIENT_ID: 'orbit',
          ORBIT_OIDC_ADMIN_GROUPS: 'platform, sre ,',
          ORBIT_OIDC_GROUPS_CLAIM: 'roles',
        },
        [],
      );
      expect(config.oidc).toEqual({
        issuer: 'https://sso.example.com/realms/acme',
        clientId: 'orbit',
        clientSecret: undefined,
        groupsClaim: 'roles',
        displayName: 'sso.example.com',
      });
      expect(config.adminGroups).toEqual(['platform', 'sre']);
    });

    it('refuses, all at once: an issuer without a client id, plain http beyond loopback, headers without proxies', () => {
      const message = refusal(() =>
        loadConfig(
          {
            ORBIT_OIDC_ISSUER: 'http://sso.example.com',
            ORBIT_TRUSTED_USER_HEADER: 'X-Forwarded-User',
            ORBIT_TRUSTED_GROUPS_HEADER: 'X Groups',
          },
          [],
        ),
      );
      expect(message).toContain('ORBIT_OIDC_ISSUER is set without ORBIT_OIDC_CLIENT_ID');
      expect(message).toContain('ORBIT_TRUSTED_GROUPS_HEADER must be an HTTP header name');
      expect(message).toContain('are honoured only from ORBIT_TRUSTED_PROXIES');
      expect(
        refusal(() => loadConfig({ ORBIT_OIDC_ISSUER: 'http://sso.example.com', ORBIT_OIDC_CLIENT_ID: 'o' }, [])),
      ).toContain("ORBIT_OIDC_ISSUER must be an https:// URL (http:// only on loopback), got 'http://sso.example.com'");
      expect(
        loadConfig({ ORBIT_OIDC_ISSUER: 'http://127.0.0.1:9000', ORBIT_OIDC_CLIENT_ID: 'o' }, []).oidc?.issuer,
      ).toBe('http://127.0.0.1:9000');
    });
  });
});
