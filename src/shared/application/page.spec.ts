import { InvalidArgumentError } from '../domain/domain-errors.js';
import { decodeCursor, encodeCursor, toPage } from './page.js';

const ID_A = '3f1c2a7e-8b4d-4c1e-9f0a-1b2c3d4e5f60';
const ID_B = 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d';
const ID_C = 'c9d8e7f6-a5b4-4c3d-8e1f-0a9b8c7d6e5f';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

function row(id: string, iso: string) {
  return { id, createdAt: new Date(iso), name: `row ${id.slice(0, 4)}` };
}

describe('cursor', () => {
  it('decode(encode(cursor)) gives back the same instant, to the millisecond, and the same id', () => {
    const cursor = { createdAt: new Date('2026-03-29T01:02:03.456Z'), id: ID_A };

    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
  });

  it('an encoded cursor is opaque and URL-safe', () => {
    const text = encodeCursor({ createdAt: new Date('2026-03-29T01:02:03.456Z'), id: ID_A });

    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(text).not.toContain(ID_A);
  });

  it('round trips for any instant and uuid', () => {
    const instants = ['1970-01-01T00:00:00.000Z', '1999-12-31T23:59:59.999Z', '2099-06-15T12:00:00.001Z'];
    for (const iso of instants) {
      for (const id of [ID_A, ID_B, ID_C, ID_C.toUpperCase()]) {
        const cursor = { createdAt: new Date(iso), id };
        expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
      }
    }
  });

  it.each([
    { label: 'an empty string', text: '' },
    { label: 'plain garbage', text: 'not-a-cursor' },
    { label: 'garbage with characters outside base64url', text: '%%%***' },
    { label: 'a cursor without an id', text: b64('2026-03-29T01:02:03.456Z') },
    { label: 'a cursor with an empty id', text: b64('2026-03-29T01:02:03.456Z|') },
    { label: 'a cursor whose id is not a uuid', text: b64('2026-03-29T01:02:03.456Z|42') },
    { label: 'a cursor whose date is not a date', text: b64(`yesterday-ish|${ID_A}`) },
    { label: 'a cursor with an empty date', text: b64(`|${ID_A}`) },
    { label: 'a cursor with an extra part', text: b64(`2026-03-29T01:02:03.456Z|${ID_A}|extra`) },
    { label: 'the parts in the wrong order', text: b64(`${ID_A}|2026-03-29T01:02:03.456Z`) },
  ])('decoding $label is refused as an invalid cursor', ({ text }) => {
    let thrown: unknown;
    try {
      decodeCursor(text);
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(InvalidArgumentError);
    expect((thrown as InvalidArgumentError).field).toBe('cursor');
    expect((thrown as Error).message).toContain('cursor');
  });
});

describe('toPage', () => {
  const newest = row(ID_A, '2026-05-04T10:00:03.000Z');
  const middle = row(ID_B, '2026-05-04T10:00:02.000Z');
  const oldest = row(ID_C, '2026-05-04T10:00:01.000Z');
  const rows = [newest, middle, oldest];

  it('with limit + 1 rows it returns limit items and a cursor pointing at the last one returned', () => {
    const page = toPage(rows, 2);

    expect(page.items).toEqual(rows.slice(0, 2));
    expect(page.nextCursor).not.toBeNull();
    expect(decodeCursor(page.nextCursor!)).toEqual({ createdAt: middle.createdAt, id: ID_B });
  });

  it('with exactly limit rows there is no next page', () => {
    const page = toPage(rows, 3);

    expect(page.items).toEqual(rows);
    expect(page.nextCursor).toBeNull();
  });

  it('with fewer rows than the limit there is no next page', () => {
    const page = toPage(rows.slice(0, 1), 10);

    expect(page.items).toEqual(rows.slice(0, 1));
    expect(page.nextCursor).toBeNull();
  });

  it('with no rows the page is empty and has no next page', () => {
    expect(toPage([], 5)).toEqual({ items: [], nextCursor: null });
  });

  it('a limit of 1 over three rows pages one row at a time', () => {
    const page = toPage(rows, 1);

    expect(page.items).toEqual([newest]);
    expect(decodeCursor(page.nextCursor!)).toEqual({ createdAt: newest.createdAt, id: ID_A });
  });

  it('does not change the rows it was given', () => {
    const given = [...rows];

    toPage(given, 1);

    expect(given).toEqual(rows);
  });
});
