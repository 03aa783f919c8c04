import { asc } from 'drizzle-orm';
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
        accounts: await tx
          .select({
            ownerType: ledgerAccounts.ownerType,
            ownerId: ledgerAccounts.ownerId,
            kind: ledgerAccounts.kind,
            currency: ledgerAccounts.currency,
            balance: ledgerAccounts.balance,
          })
          .from(ledgerAccounts)
          .orderBy(
            asc(ledgerAccounts.currency),
            asc(ledgerAccounts.ownerType),
            asc(ledgerAccounts.ownerId),
            asc(ledgerAccounts.id),
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
