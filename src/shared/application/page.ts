import { InvalidArgumentError } from '../domain/domain-errors.js';

/** A position in a newest-first list: rows strictly older than (createdAt, id) come next. */
export interface Cursor {
  createdAt: Date;
  id: string;
}

export interface PageRequest {
  limit: number;
  cursor?: Cursor;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()}|${cursor.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(text: string): Cursor {
  const [iso, id, ...rest] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(iso ?? '');
  const year = createdAt.getUTCFullYear();
  if (rest.length > 0 || !id || !UUID.test(id) || Number.isNaN(year) || year < 1970 || year > 9999) {
    throw new InvalidArgumentError('cursor is not valid: pass the nextCursor of a previous page', 'cursor');
  }
  return { createdAt, id };
}

/** Builds a page from `limit + 1` rows fetched newest first. */
export function toPage<T extends { createdAt: Date; id: string }>(rows: T[], limit: number): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}
