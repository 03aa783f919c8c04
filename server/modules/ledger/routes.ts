import { asc, sql } from 'drizzle-orm';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import { ledgerAccounts } from '../../db/schema.ts';
import { handle } from '../../http/handle.ts';
import { checkLedger } from '../../ledger/check.ts';

export const ledgerRoutes = [
  handle(endpoints.ledger.trialBalance, async ({ tx: db }) => {
    // One snapshot for every check and the balances, so concurrent postings never show as a false alarm.
    const { report, accounts } = await db.transaction(
      async (tx) => ({
        report: await checkLedger(tx),
        // A platform account kept in shards (`platformShards`) is one account: its rows summed.
        accounts: await tx
          .select({
            ownerType: ledgerAccounts.ownerType,
            ownerId:
              sql<number>`case when ${ledgerAccounts.ownerType} = 'platform' then 0 else ${ledgerAccounts.ownerId} end`.mapWith(
                Number,
              ),
            kind: ledgerAccounts.kind,
            currency: ledgerAccounts.currency,
            balance: sql<number>`sum(${ledgerAccounts.balance})`.mapWith(Number),
          })
          .from(ledgerAccounts)
          .groupBy(sql`1, 2, 3, 4`)
          .orderBy(
            asc(ledgerAccounts.currency),
            asc(ledgerAccounts.ownerType),
            sql`2`,
            sql`min(${ledgerAccounts.id})`,
          ),
      }),
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
    return {
      balanced: report.balanced,
      totals: report.totals.map((t) => ({ currency: t.currency, total: formatMinor(t.total) })),
      accounts: accounts.map((a) => ({ ...a, balance: formatMinor(a.balance) })),
      unbalancedEntries: report.unbalancedEntries.map((e) => ({
        entryId: e.entryId,
        currency: e.currency,
        sum: formatMinor(e.sum),
      })),
      brokenChains: report.brokenChains.map((b) => ({ accountId: b.accountId, seq: b.seq })),
      accountMismatches: report.accountMismatches.map((m) => ({ accountId: m.accountId })),
      dailyMismatches: report.dailyMismatches.map((m) => ({ accountId: m.accountId, day: m.day })),
    };
  }),
];
