/**
 * What every list decides before it reads: whose rows the caller may see (tenancy), the period it may
 * ask for (the lookback), and how a typed search matches text columns.
 */
import { and, desc, ilike, like, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { errno } from '../../contract/errno.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../http/errors.ts';
import type { Lang } from '../http/i18n.ts';
import type { SessionUser } from '../http/session.ts';
import { invalidField } from '../http/validation.ts';
import { dbTime } from '../lib/paging.ts';

const dayMs = 24 * 60 * 60_000;
/**
 * Lists look back 60 days (PRODUCT.md section 2), and one day more: a console's "60 days ago, local
 * midnight" in a time zone ahead of the server's, or a clock a little ahead, gets through. The contract
 * and the console say 60.
 */
export const lookbackMs = 61 * dayMs;

/** The merchant a user is confined to; null for platform users (who see every merchant). */
export const tenantOf = (user: SessionUser): number | null =>
  user.kind === 'merchant' ? user.merchantId! : null;

/**
 * The merchant a list reads: a merchant user's own, else the one the request names (if any). A merchant
 * user naming another merchant is answered 404, as if it did not exist (`otherMerchant: 'notFound'`);
 * the older lists read their own merchant whatever is named (`'ignored'`), and keep doing so.
 */
export function merchantScope(
  user: SessionUser,
  named: number | undefined,
  otherMerchant: 'notFound' | 'ignored' = 'notFound',
): number | undefined {
  const tenant = tenantOf(user);
  if (tenant === null) return named;
  if (otherMerchant === 'notFound' && named !== undefined && named !== tenant)
    throw new AppError(errno.notFound);
  return tenant;
}

/**
 * A list's period as instants the database compares with: `from` no further back than the lookback
 * (422 `validation.range60`), and with `ordered`, `to` not before `from` (422 `validation.periodOrder`).
 */
export function listPeriod(
  deps: Deps,
  input: { from: string; to: string },
  lang: Lang,
  ordered = false,
): { from: Date; to: Date } {
  const from = dbTime(input.from, 'from');
  const to = dbTime(input.to, 'to');
  if (from.getTime() < deps.clock.now().getTime() - lookbackMs)
    throw invalidField(lang, 'from', 'validation.range60');
  if (ordered && to < from) throw invalidField(lang, 'to', 'validation.periodOrder');
  return { from, to };
}

/** `s` with LIKE's wildcards taken literally. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/** `col` starts with `q`, case as typed (codes, user names, actions). */
export const textPrefix = (col: AnyPgColumn, q: string): SQL => like(col, `${escapeLike(q)}%`);

/** `col` holds `q` anywhere, in any case (names, account numbers). */
export const textContains = (col: AnyPgColumn, q: string): SQL => ilike(col, `%${escapeLike(q)}%`);

/**
 * The search box of a business set-up list (merchants, agents, channels): a code typed from its start, or
 * any part of a name in any case. Nothing typed (or only spaces) matches every row.
 */
export function codeOrName(code: AnyPgColumn, name: AnyPgColumn, typed: string | undefined): SQL | undefined {
  const q = typed?.trim();
  return q ? or(textPrefix(code, q), textContains(name, q)) : undefined;
}

/**
 * The order of `codeOrName`'s matches before the list's own: the row whose code or whole name is what was
 * typed, then names that begin with it. Without it a page of five showed the newest names holding the text
 * ("Bench Merchant 2" brought M20025–M20029, never M20002). Nothing typed: no order of its own.
 */
function codeOrNameFirst(code: AnyPgColumn, name: AnyPgColumn, typed: string | undefined): SQL[] {
  const q = typed?.trim().toLowerCase();
  if (!q) return [];
  return [
    sql`(lower(${code}) = ${q} or lower(${name}) = ${q}) desc`,
    sql`(lower(${name}) like ${`${escapeLike(q)}%`}) desc`,
  ];
}

/**
 * A business set-up list's search (merchants, agents, channels): its filter (`codeOrName` and any `more`)
 * and its order (`codeOrNameFirst`, then the newest), for `pagedList`.
 */
export function codeOrNameSearch(
  t: { id: AnyPgColumn; code: AnyPgColumn; name: AnyPgColumn },
  typed: string | undefined,
  ...more: (SQL | undefined)[]
) {
  return {
    where: and(codeOrName(t.code, t.name, typed), ...more),
    orderBy: [...codeOrNameFirst(t.code, t.name, typed), desc(t.id)],
  };
}
