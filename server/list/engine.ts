/**
 * The list engine: one page of a filtered list and its total, for every list endpoint. An endpoint says
 * what it reads (its select with joins, made `$dynamic()`), what its total counts, its filters (`where`,
 * with `scope.ts` for tenancy, the period and text search) and how it pages, and maps the page to its
 * rows. Two kinds of paging, as each endpoint's contract declares:
 *
 * - `pagedList`: page numbers, the exact total: small lists an operator pages through (administrators,
 *   roles, channels, receiving accounts);
 * - `keysetList`: a cursor after the last row's place `(time, id)`, and a total that stops counting at
 *   `totalCap`: lists that grow without end (the operation log, settlements, approvals, adjustments).
 *
 * The order lists (`server/modules/orders/list.ts`) build on the same scope and cursors, with their own
 * page statements written as JSON by the database.
 */
import { and, asc, desc, gt, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgSelect, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db/index.ts';
import type { Lang } from '../http/i18n.ts';
import { invalidField } from '../http/validation.ts';
import { cappedCount, decodeCursor, encodeCursor, pageWindow } from '../lib/paging.ts';

/** The largest id of a 4-byte `serial` column: a cursor naming more is 422, not a database error. */
export const maxSerial = 2_147_483_647;

interface ListOf<Q extends PgSelect> {
  /** The rows' select (columns and joins), `$dynamic()` and not yet filtered: the engine adds the rest. */
  query: Q;
  /** What the total counts: the list's main table, filtered by `where` alone. */
  table: PgTable;
  /** The list's filters (tenancy included). */
  where: SQL | undefined;
}

type RowOf<Q extends PgSelect> = Awaited<Q>[number];

/** Page-number paging: rows in `orderBy`'s order, a window of `pageSize` rows, and the exact total. */
export async function pagedList<Q extends PgSelect>(
  tx: Db,
  spec: ListOf<Q> & { orderBy: (SQL | AnyPgColumn)[] },
  input: { page?: number | undefined; pageSize: number },
): Promise<{ page: RowOf<Q>[]; total: number; nextCursor: null }> {
  const { limit, offset } = pageWindow(input.page, input.pageSize);
  const page: RowOf<Q>[] = await spec.query
    .where(spec.where)
    .orderBy(...spec.orderBy)
    .limit(limit)
    .offset(offset);
  const [counted] = await tx.select({ n: sql<number>`count(*)::int` }).from(spec.table).where(spec.where);
  return { page, total: Number(counted?.n ?? 0), nextCursor: null };
}

/** Keyset paging: where a row stands in the list, and what its cursor says. */
export interface Keyset<R> {
  /** The time a row is ordered by (then `id`); none: the list is ordered by `id` alone. */
  at?: AnyPgColumn;
  id: AnyPgColumn;
  /** Queues read oldest first; everything else newest first. */
  oldestFirst?: boolean;
  /** `id` is a 4-byte serial (`maxSerial`); otherwise a bigserial. */
  serialId?: boolean;
  /** A row's place for the next cursor, `(at, id)`. */
  placeOf: (row: R) => { at: Date; id: number };
  /**
   * The cursor written as the place (default), or as the id alone in decimal: a list ordered by a serial
   * id whose rows' times PostgreSQL keeps to the microsecond (a cursor's Date keeps milliseconds).
   */
  cursor?: 'place' | 'id';
  /** The period's end: the first page starts there and the total counts to it; a next page is bounded by its cursor alone (PERFORMANCE.md rule 1). */
  until?: Date | undefined;
}

/** Where a page starts: after (oldest first) or before (newest first) the cursor's place. */
function afterCursor<R>(k: Keyset<R>, cursor: string | undefined, lang: Lang): SQL | undefined {
  if (cursor === undefined) return k.until && k.at ? lte(k.at, k.until) : undefined;
  const beyond = k.oldestFirst ? gt : lt;
  if (k.cursor === 'id') {
    const id = Number(cursor);
    if (!Number.isSafeInteger(id) || id < 0) throw invalidField(lang, 'cursor', 'validation.invalid');
    return beyond(k.id, id);
  }
  const c = decodeCursor(cursor, k.serialId ? maxSerial : undefined);
  if (!k.at) return beyond(k.id, c.id);
  const place = sql`(${k.at}, ${k.id})`;
  const at = sql`${c.at.toISOString()}::timestamptz`;
  return k.oldestFirst ? sql`${place} > (${at}, ${c.id})` : sql`${place} < (${at}, ${c.id})`;
}

/**
 * Keyset paging: `pageSize` rows from the cursor (or the period's end), the next cursor when more
 * follow, and (unless `total: false`, for an endpoint that answers its own sums) the total capped at
 * `totalCap`.
 */
export async function keysetList<Q extends PgSelect, Total extends boolean = true>(
  tx: Db,
  spec: ListOf<Q> & { keyset: Keyset<RowOf<Q>>; total?: Total },
  input: { cursor?: string | undefined; pageSize: number },
  lang: Lang,
): Promise<
  { page: RowOf<Q>[]; nextCursor: string | null } & (Total extends false
    ? unknown
    : { total: number; totalCapped: boolean })
> {
  const k = spec.keyset;
  const order = k.oldestFirst ? asc : desc;
  const rows: RowOf<Q>[] = await spec.query
    .where(and(spec.where, afterCursor(k, input.cursor, lang)))
    .orderBy(...(k.at ? [order(k.at), order(k.id)] : [order(k.id)]))
    .limit(input.pageSize + 1);
  const page = rows.slice(0, input.pageSize);
  const last = page.at(-1);
  const place = last === undefined ? undefined : k.placeOf(last);
  const nextCursor =
    rows.length > input.pageSize && place
      ? k.cursor === 'id'
        ? String(place.id)
        : encodeCursor(place.at, place.id)
      : null;
  if (spec.total === false) return { page, nextCursor } as never;
  const counted = await cappedCount(
    tx,
    sql`${spec.table}`,
    and(spec.where, k.until && k.at ? lte(k.at, k.until) : undefined),
  );
  return { page, nextCursor, ...counted } as never;
}

/** The place of a row ordered by when it was created. */
export const createdPlace = (row: { createdAt: Date; id: number }) => ({ at: row.createdAt, id: row.id });
