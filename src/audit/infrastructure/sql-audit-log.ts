import { Injectable } from '@nestjs/common';
import { Cursor, Page, PageRequest, toPage } from '../../shared/application/page.js';
import { Database } from '../../shared/infrastructure/database.js';
import { AuditEvent, AuditFilter, AuditLog } from '../application/audit-log.js';
import { AUDIT_COLUMNS } from './audit.columns.js';

/** Sorts before every other uuid: (to, NIL) bounds the rows made before `to`, whatever their id. */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * Both bounds of the window are always given (infinite when open) and the cursor and `to` are
 * folded into one, so that even the generic plan of these prepared statements scans an index
 * between the bounds, newest first; the other filters are checked on the way. Without a target,
 * audit_events_newest_idx; with one, audit_events_target_idx, where that target's entries lie
 * together (one statement for both, with a condition that lets any target through when none is given,
 * would keep the generic plan on the first).
 */
const listSql = (target: string, leading = '') => `SELECT ${AUDIT_COLUMNS.select()} FROM audit_events
  WHERE ${target}(created_at, id) < ($1::timestamptz, $2::uuid) AND created_at >= $3::timestamptz
    AND ($4::text[] IS NULL OR action = ANY($4::text[]))
    AND ($5::text IS NULL OR actor = $5)
  ORDER BY ${leading}created_at DESC, id DESC LIMIT $6`;
export const LIST_SQL = listSql('');
export const TARGET_LIST_SQL = listSql('target_id = $7 AND ');
/**
 * Some teams' entries ($7): each team's newest page read from its own stretch of
 * audit_events_team_idx, then the pages merged, newest first (one index scan over every team
 * would sort each team's whole trail). The team is bounded on both sides rather than equalled,
 * and each team's page ordered as that index is, team first (within one team, the same order):
 * an equality would let the planner drop the team from the order and guess, from the number of
 * teams, that walking the whole trail's newest-first index and filtering is as cheap, which reads
 * all of the trail for a team with few entries.
 */
export const TEAMS_LIST_SQL = `SELECT e.* FROM unnest($7::text[]) AS t (name)
  CROSS JOIN LATERAL (${listSql('team >= t.name AND team <= t.name AND ', 'team, ')}) AS e
  ORDER BY e."createdAt" DESC, e.id DESC LIMIT $6`;
/** One target's entries in some teams ($8): the target's few, checked on the way. */
export const TARGET_TEAMS_LIST_SQL = listSql('target_id = $7 AND team = ANY ($8::text[]) AND ');

const INSERT = AUDIT_COLUMNS.insert();

@Injectable()
export class SqlAuditLog extends AuditLog {
  constructor(private readonly db: Database) {
    super();
  }

  async record(event: AuditEvent): Promise<void> {
    await this.db.rows(INSERT, AUDIT_COLUMNS.params(event));
  }

  async list(filter: AuditFilter, page: PageRequest): Promise<Page<AuditEvent>> {
    const before = upperBound(page.cursor, filter.to);
    const params = [
      before?.createdAt ?? 'infinity',
      before?.id ?? NIL_UUID,
      filter.from ?? '-infinity',
      filter.actions ?? null,
      filter.actor ?? null,
      page.limit + 1,
    ];
    const { targetId, teams } = filter;
    const events =
      targetId === undefined
        ? teams === undefined
          ? await this.db.rows<AuditEvent>(LIST_SQL, params)
          : await this.db.rows<AuditEvent>(TEAMS_LIST_SQL, [...params, teams])
        : teams === undefined
          ? await this.db.rows<AuditEvent>(TARGET_LIST_SQL, [...params, targetId])
          : await this.db.rows<AuditEvent>(TARGET_TEAMS_LIST_SQL, [...params, targetId, teams]);
    return toPage(events, page.limit);
  }
}

/** The tighter of the two: rows come strictly before the cursor and strictly before `to`. */
function upperBound(cursor: Cursor | undefined, to: Date | undefined): Cursor | undefined {
  const end = to && { createdAt: to, id: NIL_UUID };
  if (!cursor || !end) return cursor ?? end;
  return cursor.createdAt < end.createdAt ? cursor : end;
}
