import { Page, PageRequest } from '../../shared/application/page.js';
import { Channel } from '../domain/channel.js';

/** Persistence port of channels. Writes are conditional on the version the channel was read with. */
export abstract class ChannelRepository {
  /** Throws ConflictError when the name is taken. */
  abstract insert(channel: Channel): Promise<void>;
  /** Throws StaleWriteError when the row changed since it was read, ConflictError when the name is taken. */
  abstract update(channel: Channel): Promise<void>;
  abstract remove(channel: Channel): Promise<void>;
  /** `lock` takes a row lock for the rest of the current transaction. */
  abstract findById(id: string, lock?: boolean): Promise<Channel | null>;
  /** Newest first; of `teams` only, when given. */
  abstract list(page: PageRequest, teams?: readonly string[]): Promise<Page<Channel>>;
  /** Every channel (a short list): what the alerts consumer matches a batch against. */
  abstract all(): Promise<Channel[]>;
  /**
   * Whether there is any channel: the consumer's check per pass when there is none. In a
   * transaction, it first waits for the channels' writers in flight and keeps new ones waiting
   * until the transaction ends, so the answer holds to the end.
   */
  abstract any(): Promise<boolean>;
  /** The names of `names` that are no channel of `team`; the others stay share-locked for the current transaction. */
  abstract missing(names: readonly string[], team: string): Promise<string[]>;
}
