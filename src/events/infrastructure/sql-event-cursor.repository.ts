import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { EventCursorRepository } from '../application/event-cursor.repository.js';
import { EVENT_CURSOR_COLUMNS, EventCursorRow } from './event.columns.js';

const START = `${EVENT_CURSOR_COLUMNS.insert()} ON CONFLICT (consumer) DO NOTHING`;
const LOCK = `SELECT ${EVENT_CURSOR_COLUMNS.select(['afterSeq'])} FROM event_cursors WHERE consumer = $1 FOR UPDATE`;
const MOVE = `UPDATE event_cursors SET ${EVENT_CURSOR_COLUMNS.assignments(['afterSeq', 'updatedAt'], 2)} WHERE consumer = $1`;

@Injectable()
export class SqlEventCursorRepository extends EventCursorRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async lock(consumer: string, now: Date): Promise<number> {
    await this.db.rows(START, EVENT_CURSOR_COLUMNS.params({ consumer, afterSeq: '0', updatedAt: now }));
    const [row] = await this.db.rows<Pick<EventCursorRow, 'afterSeq'>>(LOCK, [consumer]);
    return Number(row!.afterSeq);
  }

  async move(consumer: string, after: number, now: Date): Promise<void> {
    await this.db.rows(MOVE, [consumer, after, now]);
  }
}
