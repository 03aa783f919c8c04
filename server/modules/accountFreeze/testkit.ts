/**
 * Test setup for frozen accounts: a bank account with merchants routed to it (no collection fee, so a
 * paid order's amount is what its merchant's wallet gets), orders paid into it one second apart, and
 * platform users who record and settle freezes. Shared by the freeze tests and the doors' trial.
 */
import { endpoints } from '../../../contract/index.ts';
import { inTransaction } from '../../db/index.ts';
import type { TestServer } from '../../test/harness.ts';
import { transition } from '../payin/state.ts';
import type { Merchant } from '../payin/testkit.ts';
import { accountNo, type BankSetup, bankPayin, bankSetup } from '../receiving/testkit.ts';

const { accountFreeze } = endpoints;

/** Users who may record and settle freezes (with the lists), each with a bound Google key. */
export const freezeUser = (s: TestServer) =>
  s.makeKeyHolder([
    accountFreeze.record.permission,
    accountFreeze.settle.permission,
    accountFreeze.list.permission,
    accountFreeze.info.permission,
    endpoints.receivingAccount.status.permission,
  ]);
export type FreezeUser = Awaited<ReturnType<typeof freezeUser>>;

/** A bank account with `n` fee-free merchants routed to it. */
export async function freezeSetup(s: TestServer, n = 2): Promise<BankSetup & { merchants: Merchant[] }> {
  const bank = await bankSetup(s);
  const merchants: Merchant[] = [];
  for (let i = 0; i < n; i++)
    merchants.push(
      await s.makeMerchant({
        channels: [{ channelId: bank.channelId, weight: 100 }],
        collectionRatePpm: 0,
        platformFee: 0,
      }),
    );
  return { ...bank, merchants };
}

/** A pay-in of `amount` (a decimal string) paid into its account now; the clock then moves a second. */
export async function paidInto(s: TestServer, m: Merchant, amount: string) {
  const { order } = await bankPayin(s, m, { amount });
  const paid = await inTransaction(s.db, (tx) =>
    transition(s.deps, tx, order.id, 'supplement', {
      utr: `UTR${order.id}${Date.now() % 100_000}`,
      paidAmount: order.amount,
      paidBy: 'supplement',
      paidAt: s.clock.now(),
    }),
  );
  if (paid?.status !== 'paid') throw new Error(`order ${order.id} not paid`);
  s.clock.advance(1000);
  return paid;
}

/** A receiving account no order was routed to (a freeze of it is the platform's alone). */
export async function bareAccount(s: TestServer, root: string): Promise<number> {
  const res = await s.call(
    endpoints.receivingAccount.create,
    {
      kind: 'public',
      bankName: 'ICICI Bank',
      accountName: 'Acme Collections Pvt Ltd',
      accountNumber: accountNo(),
      ifsc: 'ICIC0001234',
      dailyLimit: '100000.00',
    },
    root,
  );
  if (res.errno !== 0) throw new Error(`${res.errno} ${res.errmsg}`);
  return res.data.id as number;
}

/** Records a freeze as `by`; answers the envelope. */
export function recordAs(
  s: TestServer,
  by: FreezeUser,
  accountId: number,
  amount: string,
  more: Record<string, unknown> = {},
) {
  return s.call(
    accountFreeze.record,
    {
      accountId,
      amount,
      reference: `CYBER/${accountId}/${amount}`,
      note: 'letter',
      code: by.code(),
      ...more,
    },
    by.token,
  );
}
