import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { DEFAULT_TEAM } from '../../shared/domain/principal.js';
import { ALERT_LIMITS, ChannelAlertEvent, channelEventsOf } from '../../jobs/domain/job-alerts.js';
import { holdsMask, maskedUrl } from './masked-url.js';

export const CHANNEL_TYPES = ['webhook', 'slack', 'email'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const CHANNEL_LIMITS = { urlMaxLength: 2048, recipientsMax: 50 } as const;

/** A Standard Webhooks secret: `whsec_` and the base64 of 24 to 64 random bytes. */
const SECRET = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;
/** An address as SMTP takes it: one @, no spaces or angle brackets (the server says the rest). */
const EMAIL = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/;

/** What each type needs; the secrets (webhook `secret`, a URL's path and query) are never answered. */
export type ChannelSettings =
  | { type: 'webhook'; url: string; secret: string | null }
  | { type: 'slack'; url: string }
  | { type: 'email'; to: string[] };

export interface ChannelProps {
  id: string;
  name: string;
  /** The team that owns the channel: only its jobs name it, and its admins manage it. */
  team: string;
  settings: ChannelSettings;
  /** Set: the channel applies to every job of its team, on these events (besides the jobs' own rules), and to the cluster's. */
  allJobsOn: ChannelAlertEvent[] | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/** A channel as a caller writes it: the type's fields beside the common ones. */
export interface ChannelInput {
  name?: unknown;
  type?: unknown;
  url?: unknown;
  secret?: unknown;
  to?: unknown;
  allJobs?: unknown;
}

/** Where alerts go. */
export class Channel {
  private constructor(private props: ChannelProps) {}

  static create(input: ChannelInput, now: Date, team = DEFAULT_TEAM): Channel {
    return new Channel({
      id: randomUUID(),
      name: nameOf(input.name),
      team,
      settings: settingsOf(input, null),
      allJobsOn: allJobsOf(input.allJobs),
      createdAt: now,
      updatedAt: now,
      version: 1,
    });
  }

  static restore(props: ChannelProps): Channel {
    return new Channel({ ...props });
  }

  /** A partial change; the type stays, and a secret left out stays as it was. */
  update(patch: ChannelInput, now: Date): void {
    if (patch.type !== undefined && patch.type !== this.type) {
      throw new InvalidArgumentError(`type cannot change (it is ${this.type}): create another channel`, 'type');
    }
    const stored = this.props.settings;
    const settings = settingsOf(
      {
        type: this.type,
        url: patch.url ?? (stored.type === 'email' ? undefined : stored.url),
        secret: patch.secret,
        to: patch.to ?? (stored.type === 'email' ? stored.to : undefined),
      },
      stored,
    );
    this.props = {
      ...this.props,
      name: patch.name === undefined ? this.props.name : nameOf(patch.name),
      settings,
      allJobsOn: patch.allJobs === undefined ? this.props.allJobsOn : allJobsOf(patch.allJobs),
      updatedAt: now,
    };
  }

  /** Gives the channel to another team (whose jobs may then name it). */
  moveTo(team: string, now: Date): void {
    if (team === this.props.team) return;
    this.props = { ...this.props, team, updatedAt: now };
  }

  /** The settings without their secrets: what answers, logs and the audit trail may show. */
  publicSettings(): Record<string, unknown> {
    const settings = this.props.settings;
    switch (settings.type) {
      case 'webhook':
        return { url: maskedUrl(settings.url), hasSecret: settings.secret !== null };
      case 'slack':
        return { url: maskedUrl(settings.url) };
      case 'email':
        return { to: [...settings.to] };
    }
  }

  /** The URL an HTTP channel posts to (null for email). */
  get url(): string | null {
    return this.props.settings.type === 'email' ? null : this.props.settings.url;
  }

  persisted(): void {
    this.props.version += 1;
  }

  toProps(): ChannelProps {
    return { ...this.props };
  }

  get id(): string {
    return this.props.id;
  }
  get name(): string {
    return this.props.name;
  }
  get team(): string {
    return this.props.team;
  }
  get type(): ChannelType {
    return this.props.settings.type;
  }
  get settings(): ChannelSettings {
    return this.props.settings;
  }
  get allJobsOn(): ChannelAlertEvent[] | null {
    return this.props.allJobsOn;
  }
  get createdAt(): Date {
    return this.props.createdAt;
  }
  get updatedAt(): Date {
    return this.props.updatedAt;
  }
  get version(): number {
    return this.props.version;
  }
}

function nameOf(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidArgumentError('name must be a string', 'name');
  const name = value.trim();
  if (name === '' || name.length > ALERT_LIMITS.channelNameMaxLength || [...name].some((c) => c.charCodeAt(0) < 0x20)) {
    throw new InvalidArgumentError(
      `name must be 1 to ${ALERT_LIMITS.channelNameMaxLength} characters, without control characters`,
      'name',
    );
  }
  return name;
}

function allJobsOf(value: unknown): ChannelAlertEvent[] | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidArgumentError('allJobs must be an object { on: [events] } or null', 'allJobs');
  }
  const { on, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new InvalidArgumentError(`allJobs.${unknown} is not a field of allJobs`, 'allJobs');
  return channelEventsOf(on, 'allJobs.on');
}

function settingsOf(input: ChannelInput, stored: ChannelSettings | null): ChannelSettings {
  const type = input.type;
  const misplaced = (field: keyof ChannelInput, types: string) => {
    if (input[field] !== undefined) throw new InvalidArgumentError(`${field} is only for ${types} channels`, field);
  };
  switch (type) {
    case 'webhook': {
      misplaced('to', 'email');
      const keep = stored?.type === 'webhook' && input.secret === undefined;
      return { type, url: urlOf(input.url), secret: keep ? stored.secret : secretOf(input.secret) };
    }
    case 'slack': {
      misplaced('to', 'email');
      misplaced('secret', 'webhook');
      return { type, url: urlOf(input.url) };
    }
    case 'email':
      misplaced('url', 'webhook and slack');
      misplaced('secret', 'webhook');
      return { type, to: recipientsOf(input.to) };
    default:
      throw new InvalidArgumentError(`type must be one of ${CHANNEL_TYPES.join(', ')}`, 'type');
  }
}

/** An http(s) URL without credentials; where it points is checked by the target policy. */
function urlOf(value: unknown): string {
  if (typeof value !== 'string' || value.length > CHANNEL_LIMITS.urlMaxLength) {
    throw new InvalidArgumentError(
      `url must be an http or https URL of at most ${CHANNEL_LIMITS.urlMaxLength} characters`,
      'url',
    );
  }
  const placeholder = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value.trim());
  if (placeholder) {
    throw new InvalidArgumentError(
      `url is the placeholder ${placeholder[0]}, not a URL: orbit apply fills it from the environment variable ${placeholder[1]}`,
      'url',
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('url must be an absolute http or https URL', 'url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError(`url must be http or https, not ${url.protocol.replace(':', '')}`, 'url');
  }
  if (url.username || url.password) throw new InvalidArgumentError('url must not hold credentials', 'url');
  if (holdsMask(value)) {
    throw new InvalidArgumentError(
      `url is masked as Orbit shows it (${maskedUrl(url.href)}): give the whole URL, or leave url out to keep the stored one`,
      'url',
    );
  }
  return url.href;
}

function secretOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !SECRET.test(value)) {
    throw new InvalidArgumentError('secret must be whsec_ followed by the base64 of 24 to 64 random bytes', 'secret');
  }
  return value;
}

function recipientsOf(value: unknown): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || list.length > CHANNEL_LIMITS.recipientsMax) {
    throw new InvalidArgumentError(`to must be 1 to ${CHANNEL_LIMITS.recipientsMax} email addresses`, 'to');
  }
  for (const address of list) {
    if (typeof address !== 'string' || !EMAIL.test(address) || address.length > 254) {
      throw new InvalidArgumentError(`to: '${String(address)}' is not an email address`, 'to');
    }
  }
  return [...new Set(list as string[])];
}
