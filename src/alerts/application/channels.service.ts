import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { AlertChannelDirectory } from '../../jobs/application/job-alert-channels.js';
import type { ChannelUsers } from '../../jobs/application/job.repository.js';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { Page, PageRequest } from '../../shared/application/page.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { DEFAULT_TEAM } from '../../shared/domain/principal.js';
import { ConflictError, InvalidArgumentError, NotFoundError } from '../../shared/domain/domain-errors.js';
import { Channel, ChannelInput } from '../domain/channel.js';
import { AlertDelivery } from './alert-delivery.js';
import { AlertPayloads } from './alert-payloads.js';
import { TargetPolicy } from './alert-sender.js';
import { ChannelRepository } from './channel.repository.js';
import { DeliveryRepository, DeliveryView, NewDelivery } from './delivery.repository.js';

/** How many of the jobs that name a channel a refusal lists. */
const NAMED_JOBS = 5;
/** How many of the jobs that name a channel its answers list. */
export const LISTED_JOBS = 20;

@Injectable()
export class ChannelsService extends AlertChannelDirectory {
  constructor(
    private readonly channels: ChannelRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly jobs: JobsService,
    private readonly targets: TargetPolicy,
    private readonly delivery: AlertDelivery,
    private readonly payloads: AlertPayloads,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly config: OrbitConfig,
  ) {
    super();
  }

  /** Makes the channel in `team`. */
  async create(input: ChannelInput, team = DEFAULT_TEAM): Promise<Channel> {
    const channel = Channel.create(input, this.clock.now(), team);
    await this.checkTarget(channel);
    await this.channels.insert(channel);
    return channel;
  }

  async get(id: string, lock = false): Promise<Channel> {
    const channel = await this.channels.findById(id, lock);
    if (!channel) throw new NotFoundError(`Channel ${id} not found`);
    return channel;
  }

  /** Newest first; of `teams` only, when given. */
  list(page: PageRequest, teams?: readonly string[]): Promise<Page<Channel>> {
    return this.channels.list(page, teams);
  }

  /**
   * The jobs whose rules name each of `channels`, by channel name (a channel that none names is
   * absent); jobs of `teams` only, when given: the caller's (a channel's jobs are of its team).
   */
  usersOf(channels: readonly Channel[], teams?: readonly string[]): Promise<Map<string, ChannelUsers>> {
    return this.jobs.alertingTo(
      channels.map((channel) => channel.name),
      LISTED_JOBS,
      teams,
    );
  }

  /** Every channel (a short list). */
  all(): Promise<Channel[]> {
    return this.channels.all();
  }

  /**
   * Under a row lock; a rename is refused while jobs name the channel (their rules would lose
   * it), and so is a move to another team (`team`): the jobs that name it are of its team.
   */
  update(id: string, patch: ChannelInput, team?: string): Promise<Channel> {
    return this.transactions.run(async () => {
      const channel = await this.get(id, true);
      const name = channel.name;
      const moved = team !== undefined && team !== channel.team;
      channel.update(patch, this.clock.now());
      if (channel.name !== name) await this.refuseWhileNamed(name, 'renamed');
      if (moved) {
        await this.refuseWhileNamed(name, `moved to the team ${team}`);
        channel.moveTo(team, this.clock.now());
      }
      if (patch.url !== undefined) await this.checkTarget(channel);
      await this.channels.update(channel);
      return channel;
    });
  }

  /** Refused while a job's rules name it; its deliveries go with it. */
  remove(id: string): Promise<void> {
    return this.transactions.run(async () => {
      const channel = await this.get(id, true);
      await this.refuseWhileNamed(channel.name, 'deleted');
      await this.channels.remove(channel);
    });
  }

  /** Sends a test alert now, as a delivery like any other (retried if this attempt fails). */
  async test(id: string): Promise<DeliveryView> {
    const channel = await this.get(id);
    const now = this.clock.now();
    const deliveryId = randomUUID();
    const delivery: NewDelivery = {
      id: deliveryId,
      channelId: channel.id,
      eventSeq: null,
      event: 'test',
      jobId: null,
      executionId: null,
      payload: this.payloads.forTest(),
      createdAt: now,
      giveUpAt: new Date(now.getTime() + this.config.alertRetryHours * 3_600_000),
    };
    // claimed as it commits, so no delivery loop takes this first attempt from the request
    const claimed = await this.transactions.run(async () => {
      await this.deliveries.insertAll([delivery]);
      return this.delivery.claim(deliveryId);
    });
    if (claimed) await this.delivery.attempt(claimed, new AbortController().signal);
    return (await this.deliveries.findById(deliveryId))!;
  }

  missing(names: readonly string[], team: string): Promise<string[]> {
    return this.channels.missing(names, team);
  }

  private async checkTarget(channel: Channel): Promise<void> {
    if (channel.url !== null) await this.targets.check(channel.url, channel.type);
    if (channel.type === 'email' && this.config.smtpUrl === undefined) {
      throw new InvalidArgumentError('type email needs ORBIT_SMTP_URL set on the server', 'type');
    }
  }

  private async refuseWhileNamed(name: string, what: string): Promise<void> {
    const jobs = await this.jobs.namesAlertingTo(name);
    if (jobs.length === 0) return;
    const named = jobs
      .slice(0, NAMED_JOBS)
      .map((job) => `'${job}'`)
      .join(', ');
    const more = jobs.length > NAMED_JOBS ? ` and ${jobs.length - NAMED_JOBS} more` : '';
    throw new ConflictError(`Channel '${name}' cannot be ${what}: the alerts of ${named}${more} name it`);
  }
}
