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
    if (consumer.trim() === '' || consumer.length > CONSUMER_NAME_MAX) {
      throw new InvalidArgumentError(`consumer must be 1 to ${CONSUMER_NAME_MAX} characters`, 'consumer');
    }
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
}
