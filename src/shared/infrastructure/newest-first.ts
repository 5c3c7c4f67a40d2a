import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { PageRequest } from '../application/page.js';

/**
 * One page of a newest-first list, by keyset: rows strictly older than the cursor's
 * (created_at, id), ordered so an index on (created_at DESC, id DESC) serves it. Fetches one
 * row more than the page, so `toPage` knows whether another page follows.
 */
export function newestFirst<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  alias: string,
  page: PageRequest,
): Promise<T[]> {
  if (page.cursor) {
    query.andWhere(`(${alias}.created_at, ${alias}.id) < (:cursorCreatedAt, :cursorId)`, {
      cursorCreatedAt: page.cursor.createdAt,
      cursorId: page.cursor.id,
    });
  }
  return query
    .orderBy(`${alias}.created_at`, 'DESC')
    .addOrderBy(`${alias}.id`, 'DESC')
    .limit(page.limit + 1)
    .getMany();
}
