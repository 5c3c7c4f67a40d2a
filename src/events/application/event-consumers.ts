import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { OrbitEvent } from '../domain/orbit-event.js';
import { EventCursorRepository } from './event-cursor.repository.js';
import { EventLog } from './event-log.js';

/** A consumer's name is its cursor's key (event_cursors.consumer). */
const CONSUMER_NAME_MAX = 200;

/** Handles a batch of events; what it writes through Orbit's repositories joins the consumer's transaction. */
export type EventHandler = (events: readonly OrbitEvent[]) => Promise<void>;

/**
 * Consumers inside Orbit (alerts, for one) with their cursor in the database. One `consume`
 * is one transaction: the cursor row is locked, the events after it are read and handled, and
 * the cursor moves past them; the handler's writes commit with it or not at all. So a crash
 * neither loses an event nor handles it twice, and two processes consuming as the same
 * consumer take turns.
 */
@Injectable()
export class EventConsumers {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly cursors: EventCursorRepository,
    private readonly log: EventLog,
    private readonly clock: Clock,
  ) {}

  /** Handles up to `limit` events after the consumer's cursor; answers how many (0: it is up to date). */
  consume(consumer: string, limit: number, handler: EventHandler): Promise<number> {
    checkName(consumer);
    if (!Number.isInteger(limit) || limit < 1)
      throw new InvalidArgumentError('limit must be a positive integer', 'limit');
    return this.transactions.run(async () => {
      const after = await this.cursors.lock(consumer, this.clock.now());
      const events = await this.log.readAfter(after, limit);
      if (events.length === 0) return 0;
      await handler(events);
      await this.cursors.move(consumer, events[events.length - 1]!.seq, this.clock.now());
      return events.length;
    });
  }

  /**
   * Where a consumer that may have nothing to handle (alerts without a channel, chains without a
   * trigger) can move its cursor without reading: when `idle` says so, the head of the stream
   * (null while a transaction that may still add an event below it is open); nothing when it is
   * busy. Writes nothing. The head is read first, then `idle`, which takes a lock that every change
   * making the consumer busy takes too (the triggers' lock, a SHARE lock on channels): such a change
   * that commits before the check is seen by it, and any other commits after every event up to
   * the head. So moving the cursor there, at once or later, passes no event the consumer would
   * have handled, and a consumer that turns busy starts from the present instead of catching up on
   * events it would have ignored.
   */
  idleHead(consumer: string, idle: () => Promise<boolean>): Promise<{ idle: boolean; head: number | null }> {
    checkName(consumer);
    return this.transactions.run(async () => {
      const head = await this.log.settledSeq();
      return (await idle()) ? { idle: true, head } : { idle: false, head: null };
    });
  }

  /** Moves the consumer's cursor forward to `seq` (an idle head), under its lock; never back. */
  skipTo(consumer: string, seq: number): Promise<void> {
    checkName(consumer);
    return this.transactions.run(async () => {
      if (seq > (await this.cursors.lock(consumer, this.clock.now())))
        await this.cursors.move(consumer, seq, this.clock.now());
    });
  }
}

function checkName(consumer: string): void {
  if (consumer.trim() === '' || consumer.length > CONSUMER_NAME_MAX) {
    throw new InvalidArgumentError(`consumer must be 1 to ${CONSUMER_NAME_MAX} characters`, 'consumer');
  }
}
