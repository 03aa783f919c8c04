import { randomUUID } from 'node:crypto';
import { and, desc, eq, gte, inArray, lt, lte, or, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { journalEntries, ledgerAccounts, postings } from '../../db/schema.ts';
import { refuse } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import {
  merchantAccount,
  merchantAccountKinds,
  merchantBalances,
  post,
  postingMoves,
} from '../../ledger/index.ts';
import { cappedCount, dbTime, decodeCursor, encodeCursor } from '../../lib/paging.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { loadMerchant, targetMerchantId } from '../merchant/scope.ts';

/** The wallet balances of a merchant as the contract answers them. */
export async function balancesOf(tx: Db, merchantId: number, currency: string) {
  const b = await merchantBalances(tx, merchantId, currency);
  return {
    merchantId,
    currency,
    collection: {
      available: formatMinor(b.collection_available),
      pending: formatMinor(b.collection_pending),
    },
    payout: { available: formatMinor(b.payout_available) },
    frozen: formatMinor(b.frozen),
    reserve: formatMinor(b.reserve),
    owed: formatMinor(-b.merchant_debt),
  };
}

export const walletRoutes = [
  handle(endpoints.merchantWallet.info, async ({ input, user, tx, req }) => {
    const m = await loadMerchant(
      tx,
      targetMerchantId(user, input.merchantId, { lang: req.lang, field: 'merchantId' }),
    );
    return balancesOf(tx, m.id, m.currency);
  }),

  handle(endpoints.merchantWallet.log, async ({ input, user, tx, req }) => {
    const m = await loadMerchant(
      tx,
      targetMerchantId(user, input.merchantId, { lang: req.lang, field: 'merchantId' }),
    );
    const accounts = await tx
      .select({ id: ledgerAccounts.id, kind: ledgerAccounts.kind, ownerType: ledgerAccounts.ownerType })
      .from(ledgerAccounts)
      .where(
        and(
          eq(ledgerAccounts.ownerType, 'merchant'),
          eq(ledgerAccounts.ownerId, m.id),
          input.account
            ? eq(ledgerAccounts.kind, input.account)
            : inArray(ledgerAccounts.kind, [...merchantAccountKinds]),
        ),
      );
    const c = input.cursor ? decodeCursor(input.cursor) : undefined;
    const to = input.to ? dbTime(input.to, 'to') : undefined;
    const from = input.from ? dbTime(input.from, 'from') : undefined;
    if (!accounts.length) return { list: [], total: 0, totalCapped: false, nextCursor: null };
    const common = and(
      input.kind ? eq(journalEntries.kind, input.kind) : undefined,
      from ? gte(postings.at, from) : undefined,
    );
    // The next page carries the cursor bound only; it is tighter than the period's end.
    const bound = c
      ? or(lt(postings.at, c.at), and(eq(postings.at, c.at), lt(postings.id, c.id)))
      : to
        ? lte(postings.at, to)
        : undefined;
    // One ordered index range per account (postings_account_at_idx), merged here: a busy wallet's
    // millions of postings are never sorted to show one page.
    const perAccount = await Promise.all(
      accounts.map((a) =>
        tx
          .select({
            id: postings.id,
            entryId: postings.entryId,
            entryKind: journalEntries.kind,
            accountId: postings.accountId,
            ...postingMoves,
          })
          .from(postings)
          .innerJoin(journalEntries, eq(journalEntries.id, postings.entryId))
          .where(and(eq(postings.accountId, a.id), common, bound))
          .orderBy(desc(postings.at), desc(postings.id))
          .limit(input.pageSize + 1),
      ),
    );
    const rows = perAccount
      .flat()
      .sort((x, y) => y.at.getTime() - x.at.getTime() || y.id - x.id)
      .slice(0, input.pageSize + 1);
    const accountOf = new Map(accounts.map((a) => [a.id, a]));
    const more = rows.length > input.pageSize;
    const page = rows.slice(0, input.pageSize);
    const last = page.at(-1);
    const counted = await cappedCount(
      tx,
      sql`${postings} inner join ${journalEntries} on ${journalEntries.id} = ${postings.entryId}`,
      and(
        inArray(
          postings.accountId,
          accounts.map((a) => a.id),
        ),
        common,
        to ? lte(postings.at, to) : undefined,
      ),
    );
    return {
      list: page.map((r) => ({
        entryId: r.entryId,
        entryKind: r.entryKind,
        ownerType: accountOf.get(r.accountId)!.ownerType,
        ownerId: m.id,
        account: accountOf.get(r.accountId)!.kind,
        amount: formatMinor(r.amount),
        balanceBefore: formatMinor(r.balanceBefore),
        balanceAfter: formatMinor(r.balanceAfter),
        at: r.at.toISOString(),
      })),
      ...counted,
      nextCursor: more && last ? encodeCursor(last.at, last.id) : null,
    };
  }),

  handle(endpoints.merchantWallet.transferVerify, async ({ input, user, tx, deps, req, audit }) => {
    const m = await loadMerchant(tx, user.merchantId!);
    audit({ target: `merchant:${m.id}`, detail: { amount: formatMinor(input.amount) } });
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code, false);
    if (refused) return refused;
    const b = await merchantBalances(tx, m.id, m.currency);
    if (b.collection_available < input.amount) return refuse(errno.insufficientBalance);
    return {
      amount: formatMinor(input.amount),
      collectionAfter: formatMinor(b.collection_available - input.amount),
      payoutAfter: formatMinor(b.payout_available + input.amount),
    };
  }),

  handle(endpoints.merchantWallet.transfer, async ({ input, user, tx, deps, req, audit }) => {
    const m = await loadMerchant(tx, user.merchantId!);
    audit({ target: `merchant:${m.id}`, detail: { amount: formatMinor(input.amount) } });
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code, true);
    if (refused) return refused;
    // The ledger refuses (1019) and the transfer rolls back when the balance is short; the code stays spent.
    const lines = await post(tx, {
      kind: 'wallet_transfer',
      refType: 'wallet_transfer',
      refId: randomUUID(),
      memo: 'collection_available → payout_available',
      userId: user.id,
      at: deps.clock.now(),
      lines: [
        { account: merchantAccount(m.id, 'collection_available', m.currency), amount: -input.amount },
        { account: merchantAccount(m.id, 'payout_available', m.currency), amount: input.amount },
      ],
    });
    // Before and after as the ledger locked and posted them, not as read beforehand.
    audit({
      changes: Object.fromEntries(
        lines.map((l) => [
          l.account.kind,
          { before: formatMinor(l.balanceBefore), after: formatMinor(l.balanceAfter) },
        ]),
      ),
    });
    return balancesOf(tx, m.id, m.currency);
  }),
];
