import { Injectable } from '@nestjs/common';
import { Page, PageRequest, toPage } from '../../shared/application/page.js';
import { Database } from '../../shared/infrastructure/database.js';
import { TokenRepository } from '../application/token.repository.js';
import { ApiToken } from '../domain/api-token.js';
import { Role } from '../../shared/domain/role.js';

interface TokenRow {
  id: string;
  name: string;
  role: Role;
  token_hash: string;
  created_at: Date;
  revoked_at: Date | null;
}

const toDomain = (row: TokenRow): ApiToken =>
  ApiToken.restore({
    id: row.id,
    name: row.name,
    role: row.role,
    tokenHash: row.token_hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  });

/** Any fixed number: serialises first-start token creation across processes. */
const FIRST_TOKEN_LOCK = 7_405_112_002;

@Injectable()
export class SqlTokenRepository extends TokenRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(token: ApiToken): Promise<void> {
    const t = token.toProps();
    await this.query(
      `INSERT INTO api_tokens (id, name, role, token_hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [t.id, t.name, t.role, t.tokenHash, t.createdAt, t.revokedAt],
    );
  }

  async findLiveByHash(tokenHash: string): Promise<ApiToken | null> {
    const rows = await this.query<TokenRow>(`SELECT * FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL`, [
      tokenHash,
    ]);
    return rows[0] ? toDomain(rows[0]) : null;
  }

  async list(page: PageRequest): Promise<Page<ApiToken>> {
    const after = page.cursor;
    const rows = await this.query<TokenRow>(
      `SELECT * FROM api_tokens WHERE revoked_at IS NULL
         AND ($1::timestamptz IS NULL OR (created_at, id) < ($1, $2::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $3`,
      [after?.createdAt ?? null, after?.id ?? null, page.limit + 1],
    );
    return toPage(rows.map(toDomain), page.limit);
  }

  async revoke(id: string, now: Date): Promise<boolean> {
    const rows = await this.query(
      `UPDATE api_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id`,
      [id, now],
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
