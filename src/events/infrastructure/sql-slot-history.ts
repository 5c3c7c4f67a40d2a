import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { RecordedEvent, SlotHistory } from '../application/slot-history.js';
import { SLOT_EVENT_TYPES } from '../domain/orbit-event.js';
import { EVENT_COLUMNS } from './event.columns.js';

const RECORDED = EVENT_COLUMNS.select(['type', 'at', 'slot', 'detail']);

const PAUSES = `type IN ('job.paused', 'job.resumed')`;

/** Every read walks an index: events_job_slot_idx for slot events, events_job_pauses_idx for pauses. */
@Injectable()
export class SqlSlotHistory extends SlotHistory {
  constructor(private readonly db: Database) {
    super();
  }

  async aboutSlots(jobId: string, slots: readonly Date[]): Promise<RecordedEvent[]> {
    if (slots.length === 0) return [];
    return this.db.rows<RecordedEvent>(
      `SELECT ${RECORDED} FROM event_log
        WHERE job_id = $1 AND slot = ANY ($2::timestamptz[]) AND type = ANY ($3::text[])
        ORDER BY seq`,
      [jobId, slots, SLOT_EVENT_TYPES],
    );
  }

  async missedBefore(jobId: string, instant: Date): Promise<RecordedEvent | null> {
    const [row] = await this.db.rows<RecordedEvent>(
      `SELECT ${RECORDED} FROM event_log
        WHERE job_id = $1 AND slot IS NOT NULL AND slot < $2 AND type = 'slot.missed'
        ORDER BY slot DESC LIMIT 1`,
      [jobId, instant],
    );
    return row ?? null;
  }

  async pauseChanges(jobId: string, from: Date, to: Date, limit: number): Promise<RecordedEvent[]> {
    return this.db.rows<RecordedEvent>(
      `(SELECT ${RECORDED} FROM event_log WHERE job_id = $1 AND ${PAUSES} AND at < $2 ORDER BY at DESC LIMIT 1)
       UNION ALL
       (SELECT ${RECORDED} FROM event_log WHERE job_id = $1 AND ${PAUSES} AND at >= $2 AND at < $3
         ORDER BY at LIMIT $4)
       UNION ALL
       (SELECT ${RECORDED} FROM event_log WHERE job_id = $1 AND ${PAUSES} AND at >= $3 ORDER BY at LIMIT 1)
       ORDER BY at`,
      [jobId, from, to, limit],
    );
  }
}
