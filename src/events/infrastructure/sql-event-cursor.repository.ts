import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { EventCursorRepository } from '../application/event-cursor.repository.js';

@Injectable()
export class SqlEventCursorRepository extends EventCursorRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async lock(consumer: string, now: Date): Promise<number> {
    await this.db.rows(
      `INSERT INTO event_cursors (consumer, after_seq, updated_at) VALUES ($1, 0, $2) ON CONFLICT (consumer) DO NOTHING`,
      [consumer, now],
    );
    const [row] = await this.db.rows<{ after: string }>(
      `SELECT after_seq AS after FROM event_cursors WHERE consumer = $1 FOR UPDATE`,
      [consumer],
    );
    return Number(row!.after);
  }

  async move(consumer: string, after: number, now: Date): Promise<void> {
    await this.db.rows(`UPDATE event_cursors SET after_seq = $2, updated_at = $3 WHERE consumer = $1`, [
      consumer,
      after,
      now,
    ]);
  }
}
