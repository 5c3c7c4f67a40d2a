import { Injectable } from '@nestjs/common';
import type { AuditedAction } from '../../shared/application/audited-actions.js';
import { Page, PageRequest, toPage } from '../../shared/application/page.js';
import { Database } from '../../shared/infrastructure/database.js';
import { AuditEvent, AuditLog } from '../application/audit-log.js';

interface AuditRow {
  id: string;
  created_at: Date;
  actor: string;
  action: AuditedAction;
  target_id: string | null;
  details: Record<string, unknown>;
}

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

  async list(page: PageRequest): Promise<Page<AuditEvent>> {
    const after = page.cursor;
    const rows = await this.db.rows<AuditRow>(
      `SELECT * FROM audit_events
       WHERE ($1::timestamptz IS NULL OR (created_at, id) < ($1, $2::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $3`,
      [after?.createdAt ?? null, after?.id ?? null, page.limit + 1],
    );
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
