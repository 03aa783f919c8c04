/**
 * Receiving accounts, account holders, card bindings and holder numbers (`receivingAccount.*`,
 * `accountHolder.*`, `cardBinding.*`, `holderNumber.*`; platform users only). Writes refuse what the
 * stored rows do not allow with 422 (limits, a card without its holder, a binding to a channel that is not
 * a bank channel), a taken account number or binding with 409, and are audited.
 */
import { and, count, desc, eq, ilike, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor, ppmToPercent } from '../../../contract/money.ts';
import { bankAdapterName } from '../../channels/bank.ts';
import { type Db, sqlState } from '../../db/index.ts';
import {
  accountHolders,
  cardBindings,
  channels,
  holderNumbers,
  merchants,
  receivingAccountDays,
  receivingAccounts,
} from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { storedZone } from '../../lib/businessDay.ts';
import { pageWindow } from '../../lib/paging.ts';
import { changes } from '../../lib/redact.ts';

const { receivingAccount, accountHolder, cardBinding, holderNumber } = endpoints;

type Account = typeof receivingAccounts.$inferSelect;
type Holder = typeof accountHolders.$inferSelect;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');
const taken = (path: string) =>
  new AppError(errno.conflict, { fields: [{ path, code: 'taken', message: path }] });
/** Runs an insert or update; a unique key already held answers 409 on `path` instead. */
async function orTaken<T>(path: string, write: PromiseLike<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (sqlState(err) === '23505') throw taken(path);
    throw err;
  }
}
/** How many rows of `table` a list's filter matches, for its pager. */
async function totalOf(tx: Db, table: PgTable, where: SQL | undefined): Promise<number> {
  const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(table).where(where);
  return n;
}
/** A row the request names must exist: 404 otherwise. */
function found<T>(row: T | undefined): T {
  if (!row) throw new AppError(errno.notFound);
  return row;
}
const money = (v: number | null) => (v === null ? null : formatMinor(v));

/** "HH:MM" → minutes of the day, and back. */
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const clockOf = (m: number | null) =>
  m === null ? null : `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/** The business day of `now` in the stored zone, as SQL. */
const today = (now: Date) => sql`(${now.toISOString()}::timestamptz at time zone ${storedZone})::date`;

/** Accounts as the console shows them, with their holders' names and today's figures. */
async function accountRows(
  tx: Db,
  now: Date,
  where: SQL | undefined,
  window?: { limit: number; offset: number },
) {
  const q = tx
    .select({
      account: receivingAccounts,
      holderName: accountHolders.name,
      todayAmount: sql<string | number | null>`${receivingAccountDays.amount}`,
      todayCount: sql<number | null>`${receivingAccountDays.count}`,
    })
    .from(receivingAccounts)
    .leftJoin(accountHolders, eq(accountHolders.id, receivingAccounts.holderId))
    .leftJoin(
      receivingAccountDays,
      and(eq(receivingAccountDays.accountId, receivingAccounts.id), eq(receivingAccountDays.day, today(now))),
    )
    .where(where)
    .orderBy(desc(receivingAccounts.id));
  const rows = window ? await q.limit(window.limit).offset(window.offset) : await q;
  return rows.map(({ account: a, holderName, todayAmount, todayCount }) => ({
    id: a.id,
    kind: a.kind,
    bankName: a.bankName,
    accountName: a.accountName,
    accountNumber: a.accountNumber,
    ifsc: a.ifsc,
    vpa: a.vpa,
    dailyLimit: formatMinor(a.dailyLimit),
    dailyCount: a.dailyCount,
    minAmount: money(a.minAmount),
    maxAmount: money(a.maxAmount),
    holderId: a.holderId,
    holderName: holderName ?? null,
    status: a.status,
    lastKnownBalance: money(a.lastKnownBalance),
    todayAmount: formatMinor(Number(todayAmount ?? 0)),
    todayCount: Number(todayCount ?? 0),
    createdAt: a.createdAt.toISOString(),
  }));
}

/** The fields the operation log compares. */
const auditedAccount = (a: Account) => ({
  kind: a.kind,
  bankName: a.bankName,
  accountName: a.accountName,
  accountNumber: a.accountNumber,
  ifsc: a.ifsc,
  vpa: a.vpa,
  dailyLimit: a.dailyLimit,
  dailyCount: a.dailyCount,
  minAmount: a.minAmount,
  maxAmount: a.maxAmount,
  holderId: a.holderId,
  status: a.status,
});
const auditedHolder = (h: Holder) => ({
  name: h.name,
  phone: h.phone,
  idNumber: h.idNumber,
  commissionPpm: h.commissionPpm,
  status: h.status,
});

async function holderOr422(tx: Db, id: number, lang: Lang): Promise<Holder> {
  const [h] = await tx.select().from(accountHolders).where(eq(accountHolders.id, id));
  if (!h) throw invalidField(lang, 'holderId', 'validation.holderUnknown');
  return h;
}

function checkBounds(min: number | null, max: number | null, lang: Lang) {
  if (min !== null && max !== null && min > max)
    throw invalidField(lang, 'maxAmount', 'validation.maxBelowMin');
}

async function lockedAccount(tx: Db, id: number): Promise<Account> {
  return found(
    (await tx.select().from(receivingAccounts).where(eq(receivingAccounts.id, id)).for('update'))[0],
  );
}

export const receivingRoutes = [
  handle(receivingAccount.create, async ({ input, tx, deps, req, audit }) => {
    if (input.holderId !== undefined) await holderOr422(tx, input.holderId, req.lang);
    checkBounds(input.minAmount ?? null, input.maxAmount ?? null, req.lang);
    const now = deps.clock.now();
    const [row] = await orTaken(
      'accountNumber',
      tx
        .insert(receivingAccounts)
        .values({
          kind: input.kind,
          bankName: input.bankName,
          accountName: input.accountName,
          accountNumber: input.accountNumber,
          ifsc: input.ifsc,
          vpa: input.vpa ?? null,
          dailyLimit: input.dailyLimit,
          dailyCount: input.dailyCount ?? null,
          minAmount: input.minAmount ?? null,
          maxAmount: input.maxAmount ?? null,
          holderId: input.holderId ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning(),
    );
    audit({ target: `receivingAccount:${row!.id}`, changes: changes({}, auditedAccount(row!)) });
    return { id: row!.id };
  }),

  handle(receivingAccount.list, async ({ input, tx, deps }) => {
    const q = input.q?.trim();
    const where = and(
      input.kind ? eq(receivingAccounts.kind, input.kind) : undefined,
      input.status ? eq(receivingAccounts.status, input.status) : undefined,
      input.holderId ? eq(receivingAccounts.holderId, input.holderId) : undefined,
      q
        ? or(
            ilike(receivingAccounts.accountNumber, `%${escapeLike(q)}%`),
            ilike(receivingAccounts.accountName, `%${escapeLike(q)}%`),
            ilike(receivingAccounts.bankName, `%${escapeLike(q)}%`),
            ilike(receivingAccounts.vpa, `%${escapeLike(q)}%`),
          )
        : undefined,
    );
    const list = await accountRows(tx, deps.clock.now(), where, pageWindow(input.page, input.pageSize));
    const n = await totalOf(tx, receivingAccounts, where);
    return { list, total: n, nextCursor: null };
  }),

  handle(receivingAccount.info, async ({ input, tx, deps }) => {
    return found((await accountRows(tx, deps.clock.now(), eq(receivingAccounts.id, input.id)))[0]);
  }),

  handle(receivingAccount.update, async ({ input, tx, deps, req, audit }) => {
    const old = await lockedAccount(tx, input.id);
    audit({ target: `receivingAccount:${old.id}` });
    if (input.holderId !== undefined) {
      if (old.kind !== 'card') throw invalidField(req.lang, 'holderId', 'validation.cardHolder');
      await holderOr422(tx, input.holderId, req.lang);
    }
    const set: Partial<typeof receivingAccounts.$inferInsert> = {};
    if (input.bankName !== undefined) set.bankName = input.bankName;
    if (input.accountName !== undefined) set.accountName = input.accountName;
    if (input.ifsc !== undefined) set.ifsc = input.ifsc;
    if (input.vpa !== undefined) set.vpa = input.vpa;
    if (input.dailyLimit !== undefined) set.dailyLimit = input.dailyLimit;
    if (input.dailyCount !== undefined) set.dailyCount = input.dailyCount;
    if (input.minAmount !== undefined) set.minAmount = input.minAmount;
    if (input.maxAmount !== undefined) set.maxAmount = input.maxAmount;
    if (input.holderId !== undefined) set.holderId = input.holderId;
    checkBounds(
      set.minAmount === undefined ? old.minAmount : set.minAmount,
      set.maxAmount === undefined ? old.maxAmount : set.maxAmount,
      req.lang,
    );
    const [row] = await orTaken(
      'ifsc',
      tx
        .update(receivingAccounts)
        .set({ ...set, updatedAt: deps.clock.now() })
        .where(eq(receivingAccounts.id, old.id))
        .returning(),
    );
    audit({ changes: changes(auditedAccount(old), auditedAccount(row!)) });
    return { ok: true as const };
  }),

  handle(receivingAccount.status, async ({ input, tx, deps, audit }) => {
    const old = await lockedAccount(tx, input.id);
    audit({
      target: `receivingAccount:${old.id}`,
      changes: changes({ status: old.status }, { status: input.status }),
    });
    await tx
      .update(receivingAccounts)
      .set({ status: input.status, updatedAt: deps.clock.now() })
      .where(eq(receivingAccounts.id, old.id));
    return { ok: true as const };
  }),

  handle(accountHolder.create, async ({ input, tx, deps, audit }) => {
    const now = deps.clock.now();
    const [row] = await tx
      .insert(accountHolders)
      .values({
        name: input.name,
        phone: input.phone,
        idNumber: input.idNumber,
        commissionPpm: input.commissionRate,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    audit({ target: `accountHolder:${row!.id}`, changes: changes({}, auditedHolder(row!)) });
    return { id: row!.id };
  }),

  handle(accountHolder.list, async ({ input, tx }) => {
    const q = input.q?.trim();
    const where = and(
      input.status ? eq(accountHolders.status, input.status) : undefined,
      q
        ? or(
            ilike(accountHolders.name, `%${escapeLike(q)}%`),
            ilike(accountHolders.phone, `%${escapeLike(q)}%`),
          )
        : undefined,
    );
    const { limit, offset } = pageWindow(input.page, input.pageSize);
    const rows = await tx
      .select({
        holder: accountHolders,
        cards: sql<number>`(select count(*)::int from ${receivingAccounts} where ${receivingAccounts.holderId} = ${accountHolders.id})`,
      })
      .from(accountHolders)
      .where(where)
      .orderBy(desc(accountHolders.id))
      .limit(limit)
      .offset(offset);
    const n = await totalOf(tx, accountHolders, where);
    return {
      list: rows.map(({ holder: h, cards }) => ({
        id: h.id,
        name: h.name,
        phone: h.phone,
        idNumber: h.idNumber,
        commissionRate: ppmToPercent(h.commissionPpm),
        status: h.status,
        cardCount: Number(cards),
        createdAt: h.createdAt.toISOString(),
      })),
      total: n,
      nextCursor: null,
    };
  }),

  handle(accountHolder.update, async ({ input, tx, deps, audit }) => {
    const old = found(
      (await tx.select().from(accountHolders).where(eq(accountHolders.id, input.id)).for('update'))[0],
    );
    audit({ target: `accountHolder:${old.id}` });
    const set: Partial<typeof accountHolders.$inferInsert> = {};
    if (input.name !== undefined) set.name = input.name;
    if (input.phone !== undefined) set.phone = input.phone;
    if (input.idNumber !== undefined) set.idNumber = input.idNumber;
    if (input.commissionRate !== undefined) set.commissionPpm = input.commissionRate;
    if (input.status !== undefined) set.status = input.status;
    const [row] = await tx
      .update(accountHolders)
      .set({ ...set, updatedAt: deps.clock.now() })
      .where(eq(accountHolders.id, old.id))
      .returning();
    audit({ changes: changes(auditedHolder(old), auditedHolder(row!)) });
    return { ok: true as const };
  }),

  handle(cardBinding.create, async ({ input, tx, deps, req, audit }) => {
    audit({ detail: input });
    const [account] = await tx
      .select({ id: receivingAccounts.id })
      .from(receivingAccounts)
      .where(eq(receivingAccounts.id, input.accountId));
    if (!account) throw invalidField(req.lang, 'accountId', 'validation.accountUnknown');
    const [channel] = await tx
      .select({ adapter: channels.adapter })
      .from(channels)
      .where(eq(channels.id, input.channelId));
    if (channel?.adapter !== bankAdapterName)
      throw invalidField(req.lang, 'channelId', 'validation.bindingChannel');
    if (input.merchantIds.length) {
      const found = await tx
        .select({ id: merchants.id })
        .from(merchants)
        .where(inArray(merchants.id, input.merchantIds));
      if (found.length !== input.merchantIds.length)
        throw invalidField(req.lang, 'merchantIds', 'validation.merchantUnknown');
    }
    const from = input.activeFrom === undefined ? null : minutesOf(input.activeFrom);
    const to = input.activeTo === undefined ? null : minutesOf(input.activeTo);
    if (from !== null && from === to) throw invalidField(req.lang, 'activeTo', 'validation.hoursPair');
    const [row] = await orTaken(
      'channelId',
      tx
        .insert(cardBindings)
        .values({
          accountId: input.accountId,
          channelId: input.channelId,
          weight: input.weight,
          merchantIds: input.merchantIds,
          activeFrom: from,
          activeTo: to,
          createdAt: deps.clock.now(),
        })
        .returning(),
    );
    audit({ target: `cardBinding:${row!.id}` });
    return { id: row!.id };
  }),

  handle(cardBinding.list, async ({ input, tx }) => {
    const where = and(
      input.accountId ? eq(cardBindings.accountId, input.accountId) : undefined,
      input.channelId ? eq(cardBindings.channelId, input.channelId) : undefined,
    );
    const { limit, offset } = pageWindow(input.page, input.pageSize);
    const rows = await tx
      .select({
        binding: cardBindings,
        bankName: receivingAccounts.bankName,
        accountNumber: receivingAccounts.accountNumber,
        channelCode: channels.code,
      })
      .from(cardBindings)
      .innerJoin(receivingAccounts, eq(receivingAccounts.id, cardBindings.accountId))
      .innerJoin(channels, eq(channels.id, cardBindings.channelId))
      .where(where)
      .orderBy(desc(cardBindings.id))
      .limit(limit)
      .offset(offset);
    const n = await totalOf(tx, cardBindings, where);
    return {
      list: rows.map(({ binding: b, bankName, accountNumber, channelCode }) => ({
        id: b.id,
        accountId: b.accountId,
        accountLabel: `${bankName} ${accountNumber}`,
        channelId: b.channelId,
        channelCode,
        weight: b.weight,
        merchantIds: b.merchantIds,
        activeFrom: clockOf(b.activeFrom),
        activeTo: clockOf(b.activeTo),
        createdAt: b.createdAt.toISOString(),
      })),
      total: n,
      nextCursor: null,
    };
  }),

  handle(cardBinding.delete, async ({ input, tx, audit }) => {
    const gone = found((await tx.delete(cardBindings).where(eq(cardBindings.id, input.id)).returning())[0]);
    audit({
      target: `cardBinding:${gone.id}`,
      detail: { accountId: gone.accountId, channelId: gone.channelId, weight: gone.weight },
    });
    return { ok: true as const };
  }),

  handle(holderNumber.create, async ({ input, tx, deps, req, audit }) => {
    audit({ detail: input });
    await holderOr422(tx, input.holderId, req.lang);
    await checkHolderCards(tx, input.holderId, input.accountIds, req.lang);
    const [row] = await orTaken(
      'value',
      tx
        .insert(holderNumbers)
        .values({
          holderId: input.holderId,
          kind: input.kind,
          value: input.value,
          accountIds: input.accountIds,
          createdAt: deps.clock.now(),
        })
        .returning(),
    );
    audit({ target: `holderNumber:${row!.id}` });
    return { id: row!.id };
  }),

  handle(holderNumber.list, async ({ input, tx }) => {
    const where = input.holderId ? eq(holderNumbers.holderId, input.holderId) : undefined;
    const { limit, offset } = pageWindow(input.page, input.pageSize);
    const rows = await tx
      .select({ n: holderNumbers, holderName: accountHolders.name })
      .from(holderNumbers)
      .innerJoin(accountHolders, eq(accountHolders.id, holderNumbers.holderId))
      .where(where)
      .orderBy(desc(holderNumbers.id))
      .limit(limit)
      .offset(offset);
    const n = await totalOf(tx, holderNumbers, where);
    return {
      list: rows.map(({ n: h, holderName }) => ({
        id: h.id,
        holderId: h.holderId,
        holderName,
        kind: h.kind,
        value: h.value,
        accountIds: h.accountIds,
        status: h.status,
        createdAt: h.createdAt.toISOString(),
      })),
      total: n,
      nextCursor: null,
    };
  }),

  handle(holderNumber.update, async ({ input, tx, req, audit }) => {
    const old = found(
      (await tx.select().from(holderNumbers).where(eq(holderNumbers.id, input.id)).for('update'))[0],
    );
    audit({ target: `holderNumber:${old.id}` });
    if (input.accountIds !== undefined) await checkHolderCards(tx, old.holderId, input.accountIds, req.lang);
    const set: Partial<typeof holderNumbers.$inferInsert> = {};
    if (input.accountIds !== undefined) set.accountIds = input.accountIds;
    if (input.status !== undefined) set.status = input.status;
    if (Object.keys(set).length) await tx.update(holderNumbers).set(set).where(eq(holderNumbers.id, old.id));
    audit({
      changes: changes(
        { accountIds: old.accountIds, status: old.status },
        { accountIds: set.accountIds, status: set.status },
      ),
    });
    return { ok: true as const };
  }),
];

/** A holder's numbers link only to that holder's own cards. */
async function checkHolderCards(tx: Db, holderId: number, accountIds: readonly number[], lang: Lang) {
  if (!accountIds.length) return;
  const own = await tx
    .select({ id: receivingAccounts.id })
    .from(receivingAccounts)
    .where(and(inArray(receivingAccounts.id, [...accountIds]), eq(receivingAccounts.holderId, holderId)));
  if (own.length !== new Set(accountIds).size)
    throw invalidField(lang, 'accountIds', 'validation.holderCards');
}
