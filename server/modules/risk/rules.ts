/**
 * The risk rules as requests meet them (docs/MONEY-BACK.md section 4): the blocklist consulted for what a
 * request carries, the merchant's velocity limits counted from its pay-ins by payer key, and every
 * refusal written (rule, merchant, time) for the dashboard. A refusal names the rule, never the value.
 */
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { type BlocklistKind, normalBlockValue, type RiskRule } from '../../../contract/endpoints/risk.ts';
import { errno } from '../../../contract/errno.ts';
import { payin } from '../../../contract/machines.ts';
import type { Database, Db } from '../../db/index.ts';
import { blocklistEntries, type merchants, riskRefusals } from '../../db/schema.ts';
import { statesSql } from '../../db/states.ts';
import { AppError } from '../../http/errors.ts';
import { rowsOf } from '../../ledger/index.ts';
import { storedZone } from '../../lib/businessDay.ts';
import { FeedKept } from '../../lib/feedKept.ts';

type Merchant = typeof merchants.$inferSelect;

/** A request a rule refused: `riskBlocked` (403) or `velocityExceeded` (429), with `{rule}`. */
export class RiskRefusal extends AppError {
  constructor(readonly rule: RiskRule) {
    super(
      rule === 'velocity_count' || rule === 'velocity_amount' ? errno.velocityExceeded : errno.riskBlocked,
      { rule },
      `risk rule ${rule}`,
    );
  }
}

/** A value to look up under a kind. */
export interface BlockCheck {
  kind: BlocklistKind;
  value: string;
}

/** The entries not removed, by kind and value, with when each stops applying (null: until removed). */
type LiveEntries = Map<string, Date | null>;
const entryKey = (kind: BlocklistKind, value: string) => `${kind}\u0000${value}`;

/**
 * Kept per open database while the change feed shows no change to `blocklist_entries` (migration 0034):
 * every signed creation and every pay page poll meets the list, which changes only from the console, so
 * the next read after a change (in any server process) sees it.
 */
const kept = new FeedKept<0, LiveEntries>(1);

async function liveEntries(database: Database): Promise<LiveEntries> {
  const hit = kept.get(database, 0);
  if (hit) return hit;
  const read = kept.mark(database);
  const rows = await database.db
    .select({ kind: blocklistEntries.kind, value: blocklistEntries.value, endsAt: blocklistEntries.endsAt })
    .from(blocklistEntries)
    .where(isNull(blocklistEntries.removedAt));
  const entries: LiveEntries = new Map(rows.map((r) => [entryKey(r.kind, r.value), r.endsAt]));
  kept.keep(database, 0, entries, read);
  return entries;
}

/**
 * The first of `checks` (in their order) a live entry names at `now`: not removed, not past its end.
 * Outside a transaction (`tx` is `database`'s own handle: the gateway's creation, the pay page) from the
 * entries kept in memory; inside one (the console's creation, the demo), which may hold entries of its
 * own not committed yet, one probe of `blocklist_entries_live_key` per check, in one statement.
 */
export async function blockedBy(
  tx: Db,
  now: Date,
  checks: readonly BlockCheck[],
  database?: Database,
): Promise<BlocklistKind | null> {
  const wanted = checks
    .map((c) => ({ kind: c.kind, value: normalBlockValue(c.kind, c.value) }))
    .filter((c) => c.value !== '');
  if (!wanted.length) return null;
  if (database && tx === database.db) {
    const live = await liveEntries(database);
    const applies = (c: BlockCheck) => {
      const key = entryKey(c.kind, c.value);
      if (!live.has(key)) return false;
      const end = live.get(key);
      return end == null || end > now;
    };
    return wanted.find(applies)?.kind ?? null;
  }
  const found = await tx
    .select({ kind: blocklistEntries.kind })
    .from(blocklistEntries)
    .where(
      and(
        isNull(blocklistEntries.removedAt),
        or(isNull(blocklistEntries.endsAt), gt(blocklistEntries.endsAt, now)),
        or(...wanted.map((c) => and(eq(blocklistEntries.kind, c.kind), eq(blocklistEntries.value, c.value)))),
      ),
    );
  const kinds = new Set(found.map((f) => f.kind));
  return wanted.find((c) => kinds.has(c.kind))?.kind ?? null;
}

/**
 * Writes a refusal. On the pay page (`orderNo`) once per order and rule, however often the page asks;
 * at creation once per request.
 */
export async function recordRefusal(
  tx: Db,
  refusal: { rule: RiskRule; merchantId: number; at: Date; orderNo?: string },
): Promise<void> {
  await tx
    .insert(riskRefusals)
    .values({ ...refusal, orderNo: refusal.orderNo ?? null })
    .onConflictDoNothing();
}

/** The payer a creation names, as its pay-ins are counted: the phone, else the e-mail; null: neither. */
export function payerKeyOf(
  payer: { email?: string | undefined; phone?: string | undefined } | null | undefined,
): string | null {
  const phone = normalBlockValue('payer_phone', payer?.phone ?? '');
  if (phone) return `phone:${phone}`;
  const email = normalBlockValue('payer_email', payer?.email ?? '');
  return email ? `email:${email}` : null;
}

/** The pay page's key for a payer the creation did not name. */
export const ipPayerKey = (ip: string) => `ip:${normalBlockValue('payer_ip', ip)}`;

const notCounted = statesSql([payin.state.creation_failed]);

/**
 * The velocity rule `key`'s pay-ins of `merchant` break, if any: those created on the business day of
 * `upTo` until `upTo` (a creation: before it, plus the one asked, `adding`; the pay page: up to and
 * including its own order, `ownId`) through `payin_orders_payer_day_idx`. A creation that failed is not counted.
 */
export async function velocityBroken(
  tx: Db,
  merchant: Pick<Merchant, 'id' | 'velocityPayinsPerDay' | 'velocityAmountPerDay'>,
  key: string,
  upTo: Date,
  adding: { count: number; amount: number },
  /** The pay page's own order: of those created in the same instant, only the ones before it count. */
  ownId?: number,
): Promise<RiskRule | null> {
  const maxCount = merchant.velocityPayinsPerDay;
  const maxAmount = merchant.velocityAmountPerDay;
  if (maxCount === null && maxAmount === null) return null;
  const at = upTo.toISOString();
  const [row] = rowsOf<{ n: number; total: string }>(
    await tx.execute(sql`
      with z as (select ${storedZone} as zone)
      select count(*)::int as n, coalesce(sum(amount), 0)::text as total
      from payin_orders, z
      where merchant_id = ${merchant.id} and payer_key = ${key}
        and created_at >= (((${at}::timestamptz at time zone z.zone)::date)::timestamp at time zone z.zone)
        and created_at <= ${at}::timestamptz${
          ownId === undefined ? sql`` : sql` and (created_at < ${at}::timestamptz or id <= ${ownId})`
        }
        and status not in (${notCounted})`),
  );
  const count = Number(row?.n ?? 0) + adding.count;
  const amount = Number(row?.total ?? 0) + adding.amount;
  if (maxCount !== null && count > maxCount) return 'velocity_count';
  if (maxAmount !== null && amount > maxAmount) return 'velocity_amount';
  return null;
}

/**
 * The rules a new pay-in meets before anything is made: the merchant and the payer's phone, e-mail and
 * UPI ID (or account) on the blocklist, then the merchant's velocity limits for the payer the request names. A refusal is
 * written on `tx` and thrown (`RiskRefusal`): a caller inside a transaction returns it as a `Refusal`
 * so that the record commits (nothing else was written).
 */
export async function checkCreation(
  tx: Db,
  merchant: Merchant,
  req: {
    amount: number;
    payer?: { email?: string | undefined; phone?: string | undefined; vpa?: string | undefined } | undefined;
  },
  now: Date,
  /** The database, whose kept entries serve a check outside a transaction. */
  database?: Database,
): Promise<void> {
  const blocked = await blockedBy(
    tx,
    now,
    [
      { kind: 'merchant', value: merchant.code },
      { kind: 'payer_phone', value: req.payer?.phone ?? '' },
      { kind: 'payer_email', value: req.payer?.email ?? '' },
      { kind: 'payer_vpa', value: req.payer?.vpa ?? '' },
    ],
    database,
  );
  const key = payerKeyOf(req.payer);
  const rule =
    blocked ??
    (key === null ? null : await velocityBroken(tx, merchant, key, now, { count: 1, amount: req.amount }));
  if (!rule) return;
  await recordRefusal(tx, { rule, merchantId: merchant.id, at: now });
  throw new RiskRefusal(rule);
}
