import { Injectable } from '@nestjs/common';
import { ChannelsService } from '../../alerts/application/channels.service.js';
import { Channel, ChannelInput } from '../../alerts/domain/channel.js';
import { maskedUrl } from '../../alerts/domain/masked-url.js';
import { Clock } from '../../shared/domain/clock.js';
import { changedFields, FieldChange } from '../../shared/application/field-changes.js';
import { ApplyScope, ApplySection, forEachEntry, madeUnlessTaken, PlanItem, uniqueNames } from './plan.js';

/** A channel of the file: every field of POST /channels but the name, which is its key. */
type ChannelEntry = Omit<ChannelInput, 'name'>;

/** What a plan shows of a secret: whether there is one. */
const SECRET_SHOWN = '(secret)';

/**
 * The channels the file's jobs alert to, applied before the jobs so that their rules find
 * them. The file is the whole channel: a webhook without `secret` has none. Channels are
 * never pruned (jobs the file does not name may alert to them). The file is compared with its
 * team's channels only, and a channel it makes is that team's.
 */
@Injectable()
export class ChannelsSection extends ApplySection {
  readonly key = 'channels';

  constructor(
    private readonly channels: ChannelsService,
    private readonly clock: Clock,
  ) {
    super();
  }

  async apply(entries: Readonly<Record<string, ChannelEntry>>, { team }: ApplyScope): Promise<PlanItem[]> {
    uniqueNames(this.key, Object.keys(entries));
    const stored = new Map((await this.of([team])).map((channel) => [channel.name, channel]));
    return forEachEntry(this.key, entries, async (key, entry): Promise<PlanItem> => {
      const input: ChannelInput = {
        allJobs: null,
        ...(entry.type === 'webhook' ? { secret: null } : {}),
        ...entry,
        name: key,
      };
      const channel = stored.get(key.trim());
      if (!channel) {
        const created = await this.create(key.trim(), input, team);
        return { section: this.key, name: created.name, action: 'create', changes: [] };
      }
      const desired = Channel.restore(channel.toProps());
      desired.update(input, this.clock.now());
      const changes = changedFields(comparable(channel), comparable(desired)).map(shownChange);
      if (changes.length > 0) await this.channels.update(channel.id, input);
      return {
        section: this.key,
        name: channel.name,
        action: changes.length > 0 ? 'update' : 'unchanged',
        changes,
      };
    });
  }

  /**
   * Secrets are never answered: the file gets `${ORBIT_CHANNEL_<NAME>_URL}` (a URL's path and
   * query may be one) and `${ORBIT_CHANNEL_<NAME>_SECRET}` for the CLI to fill in. A placeholder
   * applied unfilled is refused as a URL or a secret, so it never replaces the stored value.
   */
  async current(teams?: readonly string[]): Promise<Record<string, object>> {
    const channels = (await this.of(teams)).sort((a, b) => a.name.localeCompare(b.name));
    return Object.fromEntries(
      channels.map((channel) => {
        const variable = `ORBIT_CHANNEL_${channel.name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
        const settings = channel.settings;
        const fields =
          settings.type === 'email'
            ? { to: settings.to }
            : {
                url: `\${${variable}_URL}`,
                ...(settings.type === 'webhook' && settings.secret !== null
                  ? { secret: `\${${variable}_SECRET}` }
                  : {}),
              };
        const allJobs = channel.allJobsOn ? { allJobs: { on: channel.allJobsOn } } : {};
        return [channel.name, { type: settings.type, ...fields, ...allJobs }];
      }),
    );
  }

  /** A new channel of the file's team; a name another team's channel has is taken. */
  private create(name: string, input: ChannelInput, team: string): Promise<Channel> {
    return madeUnlessTaken('channel', name, () => this.channels.create(input, team));
  }

  /** The channels of `teams` (undefined: every team's). */
  private async of(teams?: readonly string[]): Promise<Channel[]> {
    const channels = await this.channels.all();
    return teams === undefined ? channels : channels.filter((channel) => teams.includes(channel.team));
  }
}

/** A change as the plan shows it: a secret as `(secret)`, a URL masked as channels answer it. */
function shownChange(change: FieldChange): FieldChange {
  if (change.field === 'secret') return { ...change, from: change.from && SECRET_SHOWN, to: change.to && SECRET_SHOWN };
  if (change.field === 'url') {
    const shown = (url: unknown) => (typeof url === 'string' ? maskedUrl(url) : url);
    return { ...change, from: shown(change.from), to: shown(change.to) };
  }
  return change;
}

function comparable(channel: Channel): object {
  return { ...channel.settings, allJobs: channel.allJobsOn };
}
