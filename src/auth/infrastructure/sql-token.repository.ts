import { Injectable } from '@nestjs/common';
import { Page, PageRequest, toPage } from '../../shared/application/page.js';
import { Database } from '../../shared/infrastructure/database.js';
import { TokenRepository } from '../application/token.repository.js';
import { ApiToken, ApiTokenProps } from '../domain/api-token.js';
import { TOKEN_COLUMNS } from './token.columns.js';

const toDomain = (row: ApiTokenProps): ApiToken => ApiToken.restore(row);

const SELECTED = TOKEN_COLUMNS.select();
const INSERT = TOKEN_COLUMNS.insert();

/** Any fixed number: serialises first-start token creation across processes. */
const FIRST_TOKEN_LOCK = 7_405_112_002;

@Injectable()
export class SqlTokenRepository extends TokenRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(token: ApiToken): Promise<void> {
    await this.query(INSERT, TOKEN_COLUMNS.params(token.toProps()));
  }

  async findLiveByHash(tokenHash: string): Promise<ApiToken | null> {
    const rows = await this.query<ApiTokenProps>(
      `SELECT ${SELECTED} FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL`,
      [tokenHash],
    );
    return rows[0] ? toDomain(rows[0]) : null;
  }

  async list(page: PageRequest, userId?: string): Promise<Page<ApiToken>> {
    const after = page.cursor;
    const rows = await this.query<ApiTokenProps>(
      `SELECT ${SELECTED} FROM api_tokens WHERE revoked_at IS NULL
         AND ($1::timestamptz IS NULL OR (created_at, id) < ($1, $2::uuid))
         AND ($4::uuid IS NULL OR user_id = $4)
       ORDER BY created_at DESC, id DESC LIMIT $3`,
      [after?.createdAt ?? null, after?.id ?? null, page.limit + 1, userId ?? null],
    );
    return toPage(rows.map(toDomain), page.limit);
  }

  async revoke(id: string, now: Date, userId?: string): Promise<boolean> {
    const rows = await this.query(
      `UPDATE api_tokens SET revoked_at = $2
        WHERE id = $1 AND revoked_at IS NULL AND ($3::uuid IS NULL OR user_id = $3) RETURNING id`,
      [id, now, userId ?? null],
    );
    return rows.length === 1;
  }

  async countLive(): Promise<number> {
    const rows = await this.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_tokens WHERE revoked_at IS NULL`);
    return rows[0]?.n ?? 0;
  }

  exclusively<T>(work: () => Promise<T>): Promise<T> {
    return this.db.run(async () => {
      await this.query('SELECT pg_advisory_xact_lock($1)', [FIRST_TOKEN_LOCK]);
      return work();
    });
  }

  private query<T = unknown>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.db.rows<T>(sql, params);
  }
}
