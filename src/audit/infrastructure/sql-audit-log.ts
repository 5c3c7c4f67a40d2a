import { Injectable } from '@nestjs/common';
import type { AuditedAction } from '../../shared/application/audited-actions.js';
import { Cursor, Page, PageRequest, toPage } from '../../shared/application/page.js';
import { Database } from '../../shared/infrastructure/database.js';
import { AuditEvent, AuditFilter, AuditLog } from '../application/audit-log.js';

interface AuditRow {
  id: string;
  created_at: Date;
  actor: string;
  action: AuditedAction;
  target_id: string | null;
  details: Record<string, unknown>;
}

/** Sorts before every other uuid: (to, NIL) bounds the rows made before `to`, whatever their id. */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * Both bounds of the window are always given (infinite when open) and the cursor and `to` are
 * folded into one, so that even the generic plan of this prepared statement scans
 * audit_events_newest_idx between the bounds; the other filters are checked on the way.
 */
const LIST_SQL = `SELECT * FROM audit_events
  WHERE (created_at, id) < ($1::timestamptz, $2::uuid) AND created_at >= $3::timestamptz
    AND ($4::text[] IS NULL OR action = ANY($4::text[]))
    AND ($5::text IS NULL OR actor = $5)
    AND ($6::text IS NULL OR target_id = $6)
  ORDER BY created_at DESC, id DESC LIMIT $7`;

@Injectable()
export class SqlAuditLog extends AuditLog {
  constructor(private readonly db: Database) {
    super();
  }

  async record(event: AuditEvent): Promise<void> {
    await this.db.rows(
      `INSERT INTO audit_events (id, created_at, actor, action, target_id, details) VALUES ($1, $2, $3, $4, $5, $6)`,
      [event.id, event.createdAt, event.actor, event.action, event.targetId, JSON.stringify(event.details)],
    );
  }

  async list(filter: AuditFilter, page: PageRequest): Promise<Page<AuditEvent>> {
    const before = upperBound(page.cursor, filter.to);
    const rows = await this.db.rows<AuditRow>(LIST_SQL, [
      before?.createdAt ?? 'infinity',
      before?.id ?? NIL_UUID,
      filter.from ?? '-infinity',
      filter.actions ?? null,
      filter.actor ?? null,
      filter.targetId ?? null,
      page.limit + 1,
    ]);
    const events = rows.map((r): AuditEvent => ({
      id: r.id,
      createdAt: r.created_at,
      actor: r.actor,
      action: r.action,
      targetId: r.target_id,
      details: r.details,
    }));
    return toPage(events, page.limit);
  }
}

/** The tighter of the two: rows come strictly before the cursor and strictly before `to`. */
function upperBound(cursor: Cursor | undefined, to: Date | undefined): Cursor | undefined {
  const end = to && { createdAt: to, id: NIL_UUID };
  if (!cursor || !end) return cursor ?? end;
  return cursor.createdAt < end.createdAt ? cursor : end;
}
