/** Receiving accounts (`receivingAccount.*`): the bank accounts and UPI addresses payers pay into, with today's figures. */
import { and, desc, eq, or, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { accountHolders, receivingAccountDays, receivingAccounts } from '../../db/schema.ts';
import { AppError, found, foundOne } from '../../http/errors.ts';
import { type Context, handle } from '../../http/handle.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { storedZone } from '../../lib/businessDay.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { textContains } from '../../list/scope.ts';
import { openFreezeOf } from '../accountFreeze/service.ts';
import type { Account } from './shared.ts';
import { holderOr422, orTaken } from './shared.ts';

const { receivingAccount } = endpoints;

/** The business day of `now` in the stored zone, as SQL. */
const today = (now: Date) => sql`(${now.toISOString()}::timestamptz at time zone ${storedZone})::date`;
const money = (v: number | null) => (v === null ? null : formatMinor(v));

/** Accounts with their holders' names and today's figures, for a page or one account. */
const accountQuery = (tx: Db, now: Date) =>
  tx
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
    .$dynamic();

/** What the bank knows the account by: the console shows it and the operation log compares it. */
const bankDetails = (a: Account) => ({
  kind: a.kind,
  bankName: a.bankName,
  accountName: a.accountName,
  accountNumber: a.accountNumber,
  ifsc: a.ifsc,
  vpa: a.vpa,
});

/** An account as the console shows it. */
const accountView = ({
  account: a,
  holderName,
  todayAmount,
  todayCount,
}: Awaited<ReturnType<typeof accountQuery>>[number]) => ({
  id: a.id,
  ...bankDetails(a),
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
});

/** The fields the operation log compares. */
const auditedAccount = (a: Account) => ({
  ...bankDetails(a),
  dailyLimit: a.dailyLimit,
  dailyCount: a.dailyCount,
  minAmount: a.minAmount,
  maxAmount: a.maxAmount,
  holderId: a.holderId,
  status: a.status,
});
function checkBounds(min: number | null, max: number | null, lang: Lang) {
  if (min !== null && max !== null && min > max)
    throw invalidField(lang, 'maxAmount', 'validation.maxBelowMin');
}

async function lockedAccount(tx: Db, id: number): Promise<Account> {
  return await foundOne(
    tx.select().from(receivingAccounts).where(eq(receivingAccounts.id, id)).for('update'),
  );
}

async function createAccount({ input, tx, deps, req, audit }: Context<typeof receivingAccount.create>) {
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
}

async function listAccounts({ input, tx, deps }: Context<typeof receivingAccount.list>) {
  const q = input.q?.trim();
  const { page, ...rest } = await pagedList(
    tx,
    {
      query: accountQuery(tx, deps.clock.now()),
      table: receivingAccounts,
      where: and(
        input.kind ? eq(receivingAccounts.kind, input.kind) : undefined,
        input.status ? eq(receivingAccounts.status, input.status) : undefined,
        input.holderId ? eq(receivingAccounts.holderId, input.holderId) : undefined,
        q
          ? or(
              textContains(receivingAccounts.accountNumber, q),
              textContains(receivingAccounts.accountName, q),
              textContains(receivingAccounts.bankName, q),
              textContains(receivingAccounts.vpa, q),
            )
          : undefined,
      ),
      orderBy: [desc(receivingAccounts.id)],
    },
    input,
  );
  return { list: page.map(accountView), ...rest };
}

async function accountInfo({ input, tx, deps }: Context<typeof receivingAccount.info>) {
  const [row] = await accountQuery(tx, deps.clock.now()).where(eq(receivingAccounts.id, input.id));
  return accountView(found(row));
}

async function updateAccount({ input, tx, deps, req, audit }: Context<typeof receivingAccount.update>) {
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
}

async function setAccountStatus({ input, tx, deps, audit }: Context<typeof receivingAccount.status>) {
  const old = await lockedAccount(tx, input.id);
  audit({
    target: `receivingAccount:${old.id}`,
    changes: changes({ status: old.status }, { status: input.status }),
  });
  // A bank's freeze holds the account until it is settled (docs/MONEY-BACK.md section 3).
  if (input.status !== 'frozen' && (await openFreezeOf(tx, old.id))) throw new AppError(errno.conflict);
  await tx
    .update(receivingAccounts)
    .set({ status: input.status, updatedAt: deps.clock.now() })
    .where(eq(receivingAccounts.id, old.id));
  return { ok: true as const };
}

export const accountRoutes = [
  handle(receivingAccount.create, createAccount),
  handle(receivingAccount.list, listAccounts),
  handle(receivingAccount.info, accountInfo),
  handle(receivingAccount.update, updateAccount),
  handle(receivingAccount.status, setAccountStatus),
];
