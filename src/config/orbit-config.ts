import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';

export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

/** Everything a process reads from its environment, validated once at start. Also the DI token. */
export class OrbitConfig {
  role!: Role;
  host!: string;
  port!: number;
  /** Set: use that PostgreSQL. Unset: start an embedded one in `dataDir`. */
  databaseUrl!: string | undefined;
  /** The embedded PostgreSQL's folder (with its passwords): the processes of one folder share it. */
  dataDir!: string;
  /** The port the embedded PostgreSQL takes when it is free; else the next free one (see docs/embedded-postgres.md). */
  embeddedPgPort!: number;
  /** PostgreSQL connections one process keeps at most (besides the worker's LISTEN connection). */
  dbPoolSize!: number;
  workerConcurrency!: number;
  /**
   * What this node's worker says about itself (ORBIT_WORKER_LABELS, `key=value,…`), besides
   * host=<hostname>: as written; the worker parses it by the labels' rules (shared/domain/labels).
   */
  workerLabels!: string;
  leaseSeconds!: number;
  heartbeatSeconds!: number;
  killGraceSeconds!: number;
  shutdownGraceSeconds!: number;
  retryBackoffBaseMs!: number;
  retryBackoffMaxMs!: number;
  outputLimitKb!: number;
  workDir!: string;
  pollIntervalMs!: number;
  misfireThresholdSeconds!: number;
  /**
   * How long before its slot a scheduled run of an ALLOW job is queued (due at the slot), so a
   * worker starts it on time instead of after the scheduler's commit, and a herd of jobs on one
   * second is mostly queued by its slot. FORBID and REPLACE jobs are decided at the slot, on
   * what is still active then.
   */
  scheduleLeadMs!: number;
  /** Accepted as an admin token besides the stored ones; never logged. */
  adminToken!: string | undefined;
  /** Requests one token (or, without one, one address) may make per minute; 0 turns the limit off. */
  rateLimitPerMinute!: number;
  /** Failed sign-ins (unknown or revoked tokens) one client address may make per minute; 0 turns the limit off. */
  signInFailuresPerMinute!: number;
  /** Addresses and CIDR ranges of the proxies whose X-Forwarded-For names the client; empty: the socket's address. */
  trustedProxies!: string[];
  /** Event streams one token may hold open on this node at once; 0: no cap. */
  streamsPerCaller!: number;
  /** Event streams this node holds open at once; 0: no cap. */
  streamsPerNode!: number;
  /** Origins allowed to call the API from a browser; empty: CORS stays off. */
  corsOrigins!: string[];
  /**
   * As root: the user commands run as (ORBIT_COMMAND_USER, `nobody` by default; `root` only when
   * asked for). Otherwise unset: commands run as Orbit's own user.
   */
  commandUser!: string | undefined;
  /**
   * What starts commands (ORBIT_LAUNCHER): `native`, the launcher built at install; `node`, the
   * Node spawner; `auto` (the default), the native one when it was built.
   */
  launcher!: LauncherChoice;
  /** Finished executions older than this many days may be pruned... */
  retentionDays!: number;
  /** ...beyond the newest this many of each job, which are always kept. */
  retentionKeepPerJob!: number;
  /** Rows deleted per statement, so that no sweep holds long locks. */
  retentionBatchSize!: number;
  retentionIntervalSeconds!: number;
  logLevel!: LogLevel;
  /** Where alerts' links point: the address users reach Orbit at (the dashboard is under /ui/). */
  publicUrl!: string;
  /** The SMTP server of email channels (smtp:// or smtps://, credentials in it); unset: no email channel. */
  smtpUrl!: string | undefined;
  smtpFrom!: string;
  /** How long a delivery is retried before it fails for good. */
  alertRetryHours!: number;
  /** The first retry's delay; each next one doubles it (with jitter), up to an hour. */
  alertRetryBaseMs!: number;
  /** Loopback and private addresses as alert targets (link-local ones never). */
  alertsAllowPrivate!: boolean;
  /** Sign-in through an OIDC issuer; unset: people sign in with tokens only. */
  oidc!: OidcSettings | undefined;
  /** A session ends this long after its last use... */
  sessionIdleMinutes!: number;
  /** ...and at the latest this long after sign-in. */
  sessionMaxHours!: number;
  /**
   * The headers a proxy that signed the person in names them (and their groups, comma-separated)
   * by; honoured only from ORBIT_TRUSTED_PROXIES. Unset: no such mode.
   */
  trustedUserHeader!: string | undefined;
  trustedGroupsHeader!: string | undefined;
  /** The groups (of the issuer or the trusted proxy) whose members are Orbit admins. */
  adminGroups!: string[];
  /** What the operator should hear at start: settings that work but are deprecated. */
  warnings!: string[];
}

/** The OIDC issuer people sign in through. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** Unset: a public client, which proves itself by PKCE alone. */
  clientSecret: string | undefined;
  /** The claim (of the ID token or the userinfo answer) that lists the person's groups. */
  groupsClaim: string;
  /** What the sign-in page calls the issuer ("Sign in with …"). */
  displayName: string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/**
 * The settings that hold a secret. Each may be given as a file instead (`<NAME>_FILE`, read once
 * at start), so that no process's initial environment holds it.
 */
export const SECRET_SETTINGS = [
  'DATABASE_URL',
  'ORBIT_ADMIN_TOKEN',
  'ORBIT_SMTP_URL',
  'ORBIT_OIDC_CLIENT_SECRET',
] as const;
type SecretSetting = (typeof SECRET_SETTINGS)[number];

/** What starts a worker's commands: the native launcher built at install, or the Node spawner. */
export const LAUNCHER_KINDS = ['native', 'node'] as const;
export type LauncherKind = (typeof LAUNCHER_KINDS)[number];
export const LAUNCHER_CHOICES = ['auto', ...LAUNCHER_KINDS] as const;
export type LauncherChoice = (typeof LAUNCHER_CHOICES)[number];

/** Who commands run as when Orbit runs as root and ORBIT_COMMAND_USER is unset. */
export const DEFAULT_COMMAND_USER = 'nobody';

/**
 * Removes the secret settings (and their `_FILE` twins) from `env` once the configuration is
 * read, so that no process Orbit starts (the spawner, the embedded PostgreSQL) inherits them.
 */
export function forgetSecretSettings(env: Env = process.env): void {
  for (const name of SECRET_SETTINGS) {
    delete env[name];
    delete env[`${name}_FILE`];
  }
}

/** Reads the configuration; throws ConfigError naming every bad setting. `uid`: the user Orbit runs as. */
export function loadConfig(
  env: Env = process.env,
  argv: string[] = process.argv.slice(2),
  uid: number | undefined = process.getuid?.(),
): OrbitConfig {
  const problems: string[] = [];
  const warnings: string[] = [];
  const secrets = readSecrets(env, problems);
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
      return fallback;
    }
    return value;
  };

  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    problems.push(`${name} must be true or false, got '${env[name]}'`);
    return fallback;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = env[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${name} must be one of ${allowed.join(', ')}, got '${env[name]}'`);
    return fallback;
  };
  const url = (name: string, schemes: string[], given = env[name]): string | undefined => {
    const raw = given?.trim();
    if (!raw) return undefined;
    try {
      const parsed = new URL(raw);
      if (schemes.includes(parsed.protocol)) return raw;
    } catch {
      // reported below, without the value: it may hold a password
    }
    problems.push(`${name} must be a ${schemes.map((s) => `${s}//`).join(' or ')} URL`);
    return undefined;
  };

  const roleText = argv.find((a) => !a.startsWith('-')) ?? env.ORBIT_ROLE ?? 'all';
  if (!ROLES.includes(roleText as Role)) {
    problems.push(`the role must be one of ${ROLES.join(', ')} (argument or ORBIT_ROLE), got '${roleText}'`);
  }
  const dataDir = resolve(env.ORBIT_DATA_DIR || '.orbit');
  const databaseUrl = secrets.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const config: OrbitConfig = Object.assign(new OrbitConfig(), {
    role: roleText as Role,
    host: env.HOST?.trim() || '127.0.0.1',
    port: int('PORT', 3000, 0, 65535),
    databaseUrl,
    dataDir,
    embeddedPgPort: int('ORBIT_PG_PORT', 54329, 1, 65535),
    dbPoolSize: int('ORBIT_DB_POOL_SIZE', 10, 4, 1000),
    workerConcurrency: int('ORBIT_WORKER_CONCURRENCY', 4, 1, 1024),
    workerLabels: env.ORBIT_WORKER_LABELS?.trim() ?? '',
    leaseSeconds: int('ORBIT_LEASE_SECONDS', 30, 2, 86_400),
    heartbeatSeconds: int('ORBIT_HEARTBEAT_SECONDS', 10, 1, 86_400),
    killGraceSeconds: int('ORBIT_KILL_GRACE_SECONDS', 5, 0, 3600),
    shutdownGraceSeconds: int('ORBIT_SHUTDOWN_GRACE_SECONDS', 10, 0, 86_400),
    retryBackoffBaseMs: int('ORBIT_RETRY_BACKOFF_BASE_MS', 1000, 0, 86_400_000),
    retryBackoffMaxMs: int('ORBIT_RETRY_BACKOFF_MAX_MS', 300_000, 0, 86_400_000),
    outputLimitKb: int('ORBIT_OUTPUT_LIMIT_KB', 64, 1, 10_240),
    workDir: resolve(env.ORBIT_WORK_DIR || resolve(dataDir, 'work')),
    pollIntervalMs: int('ORBIT_POLL_INTERVAL_MS', 1000, 10, 3_600_000),
    misfireThresholdSeconds: int('ORBIT_MISFIRE_THRESHOLD_SECONDS', 5, 1, 86_400),
    scheduleLeadMs: int('ORBIT_SCHEDULE_LEAD_MS', 500, 0, 60_000),
    adminToken: secrets.ORBIT_ADMIN_TOKEN,
    rateLimitPerMinute: int('ORBIT_RATE_LIMIT_PER_MINUTE', 1200, 0, 1_000_000),
    signInFailuresPerMinute: int('ORBIT_SIGN_IN_FAILURES_PER_MINUTE', 20, 0, 1_000_000),
    trustedProxies: list(env.ORBIT_TRUSTED_PROXIES),
    streamsPerCaller: int('ORBIT_STREAMS_PER_CALLER', 20, 0, 100_000),
    streamsPerNode: int('ORBIT_STREAMS_PER_NODE', 200, 0, 100_000),
    corsOrigins: list(env.ORBIT_CORS_ORIGINS),
    commandUser: commandUser(env, uid, problems, warnings),
    launcher: oneOf('ORBIT_LAUNCHER', LAUNCHER_CHOICES, 'auto'),
    retentionDays: int('ORBIT_RETENTION_DAYS', 30, 1, 36_500),
    retentionKeepPerJob: int('ORBIT_RETENTION_KEEP_PER_JOB', 100, 0, 1_000_000),
    retentionBatchSize: int('ORBIT_RETENTION_BATCH_SIZE', 500, 1, 100_000),
    retentionIntervalSeconds: int('ORBIT_RETENTION_INTERVAL_SECONDS', 600, 1, 86_400),
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    smtpUrl: url('ORBIT_SMTP_URL', ['smtp:', 'smtps:'], secrets.ORBIT_SMTP_URL),
    smtpFrom: env.ORBIT_SMTP_FROM?.trim() || 'orbit@localhost',
    alertRetryHours: int('ORBIT_ALERT_RETRY_HOURS', 24, 0, 720),
    alertRetryBaseMs: int('ORBIT_ALERT_RETRY_BASE_MS', 10_000, 1, 3_600_000),
    alertsAllowPrivate: bool('ORBIT_ALERTS_ALLOW_PRIVATE', false),
    oidc: oidcSettings(env, secrets.ORBIT_OIDC_CLIENT_SECRET, problems),
    sessionIdleMinutes: int('ORBIT_SESSION_IDLE_MINUTES', 60, 1, 525_600),
    sessionMaxHours: int('ORBIT_SESSION_MAX_HOURS', 12, 1, 8_760),
    trustedUserHeader: headerName('ORBIT_TRUSTED_USER_HEADER', env, problems),
    trustedGroupsHeader: headerName('ORBIT_TRUSTED_GROUPS_HEADER', env, problems),
    adminGroups: list(env.ORBIT_OIDC_ADMIN_GROUPS),
    warnings,
  });
  const publicUrl = url('ORBIT_PUBLIC_URL', ['http:', 'https:']);
  const listenHost = ['0.0.0.0', '::'].includes(config.host) ? 'localhost' : config.host;
  config.publicUrl = (
    publicUrl ?? `http://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}:${config.port}`
  ).replace(/\/+$/, '');
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(config.smtpFrom)) {
    problems.push(`ORBIT_SMTP_FROM must be an email address, got '${config.smtpFrom}'`);
  }
  if (config.adminToken !== undefined && config.adminToken.length < 24) {
    problems.push('ORBIT_ADMIN_TOKEN must be at least 24 characters (use a long random secret)');
  }
  if (config.heartbeatSeconds >= config.leaseSeconds) {
    problems.push(
      `ORBIT_HEARTBEAT_SECONDS (${config.heartbeatSeconds}) must be less than ORBIT_LEASE_SECONDS (${config.leaseSeconds})`,
    );
  }
  const notProxies = config.trustedProxies.filter((entry) => !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry));
  if (notProxies.length > 0) {
    problems.push(
      `ORBIT_TRUSTED_PROXIES must be a comma-separated list of addresses and CIDR ranges, got '${notProxies.join("', '")}'`,
    );
  }
  if ((config.trustedUserHeader || config.trustedGroupsHeader) && config.trustedProxies.length === 0) {
    problems.push(
      'ORBIT_TRUSTED_USER_HEADER and ORBIT_TRUSTED_GROUPS_HEADER are honoured only from ORBIT_TRUSTED_PROXIES: set the proxies too',
    );
  }
  if (config.trustedGroupsHeader && !config.trustedUserHeader) {
    problems.push('ORBIT_TRUSTED_GROUPS_HEADER needs ORBIT_TRUSTED_USER_HEADER (the header that names the person)');
  }
  if (config.retryBackoffBaseMs > config.retryBackoffMaxMs) {
    problems.push('ORBIT_RETRY_BACKOFF_BASE_MS must not exceed ORBIT_RETRY_BACKOFF_MAX_MS');
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return config;
}

/** A comma-separated list, its entries trimmed, the empty ones dropped. */
function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

function headerName(name: string, env: Env, problems: string[]): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (/^[A-Za-z0-9-]+$/.test(raw)) return raw.toLowerCase();
  problems.push(`${name} must be an HTTP header name (letters, digits and '-'), got '${raw}'`);
  return undefined;
}

const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/**
 * ORBIT_OIDC_*: the issuer and the client id go together (the secret is optional: a public
 * client). The issuer is https, or http on loopback (a test issuer).
 */
function oidcSettings(env: Env, clientSecret: string | undefined, problems: string[]): OidcSettings | undefined {
  const issuer = env.ORBIT_OIDC_ISSUER?.trim() || undefined;
  const clientId = env.ORBIT_OIDC_CLIENT_ID?.trim() || undefined;
  if (!issuer && !clientId) {
    if (clientSecret)
      problems.push('ORBIT_OIDC_CLIENT_SECRET is set without ORBIT_OIDC_ISSUER and ORBIT_OIDC_CLIENT_ID');
    return undefined;
  }
  if (!issuer)
    problems.push('ORBIT_OIDC_CLIENT_ID is set without ORBIT_OIDC_ISSUER (the issuer people sign in through)');
  if (!clientId)
    problems.push("ORBIT_OIDC_ISSUER is set without ORBIT_OIDC_CLIENT_ID (Orbit's client id at the issuer)");
  if (!issuer || !clientId) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(issuer);
  } catch {
    // reported below
  }
  if (
    !parsed ||
    !(parsed.protocol === 'https:' || (parsed.protocol === 'http:' && LOOPBACK_HOST.test(parsed.hostname)))
  ) {
    problems.push(`ORBIT_OIDC_ISSUER must be an https:// URL (http:// only on loopback), got '${issuer}'`);
    return undefined;
  }
  return {
    issuer,
    clientId,
    clientSecret,
    groupsClaim: env.ORBIT_OIDC_GROUPS_CLAIM?.trim() || 'groups',
    displayName: env.ORBIT_OIDC_NAME?.trim() || parsed.hostname,
  };
}

/** Each secret setting from its variable or from its file (trailing line breaks dropped), never both. */
function readSecrets(env: Env, problems: string[]): Record<SecretSetting, string | undefined> {
  const secrets = {} as Record<SecretSetting, string | undefined>;
  for (const name of SECRET_SETTINGS) {
    const given = env[name] || undefined;
    const file = env[`${name}_FILE`]?.trim() || undefined;
    if (file === undefined) {
      secrets[name] = given;
    } else if (given !== undefined) {
      problems.push(`${name} and ${name}_FILE are both set: set one of them`);
    } else {
      try {
        secrets[name] = readFileSync(file, 'utf8').replace(/[\r\n]+$/, '');
        if (secrets[name] === '') problems.push(`${name}_FILE: ${file} is empty`);
      } catch (error) {
        problems.push(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      }
    }
  }
  return secrets;
}

/** ORBIT_COMMAND_USER (or its old name ORBIT_RUN_AS_USER), which only root can switch to. */
function commandUser(env: Env, uid: number | undefined, problems: string[], warnings: string[]): string | undefined {
  const given = env.ORBIT_COMMAND_USER?.trim() || undefined;
  const old = env.ORBIT_RUN_AS_USER?.trim() || undefined;
  if (old !== undefined && given !== undefined) {
    problems.push('ORBIT_RUN_AS_USER is the old name of ORBIT_COMMAND_USER: set only ORBIT_COMMAND_USER');
  } else if (old !== undefined) {
    warnings.push('ORBIT_RUN_AS_USER is deprecated: name it ORBIT_COMMAND_USER');
  }
  const user = given ?? old;
  if (uid === 0) return user ?? DEFAULT_COMMAND_USER;
  if (user !== undefined) {
    problems.push(
      `${given ? 'ORBIT_COMMAND_USER' : 'ORBIT_RUN_AS_USER'} needs Orbit to run as root (it switches commands to that user); ` +
        'unset it to run commands as the user Orbit runs as',
    );
  }
  return undefined;
}
