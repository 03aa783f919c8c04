/**
 * Test setup for the bank channel: a bank channel, a public receiving account bound to it, and a merchant
 * routed through it only; pay-ins created through the gateway land on that account. Shared by the
 * receiving, statement, pay page and reconciliation tests.
 */
import { eq } from 'drizzle-orm';
import { endpoints } from '../../../contract/index.ts';
import type { StatementMapping } from '../../../contract/statementMapping.ts';
import { payinOrders } from '../../db/schema.ts';
import type { TestServer } from '../../test/harness.ts';
import { type Merchant, payinBody } from '../payin/testkit.ts';

/** A plain CSV statement's mapping: Date (yyyy-MM-dd), Narration, Ref, Debit, Credit. */
export const csvMapping: StatementMapping = {
  headerRow: 1,
  dateColumn: 'Date',
  dateFormat: 'yyyy-MM-dd',
  narrationColumn: 'Narration',
  referenceColumn: 'Ref',
  debitColumn: 'Debit',
  creditColumn: 'Credit',
};

let seq = 0;
/** An account number no other test uses. */
export const accountNo = () => `${Date.now() % 1_000_000_000}${String(++seq).padStart(4, '0')}`;

async function ok<T>(p: Promise<{ errno: number; errmsg: string; data: T }>): Promise<T> {
  const res = await p;
  if (res.errno !== 0) throw new Error(`${res.errno} ${res.errmsg} ${JSON.stringify(res.data)}`);
  return res.data;
}

export interface BankSetup {
  root: string;
  channelId: number;
  accountId: number;
  merchant: Merchant;
}

/** A bank channel with one public account (daily limit 1,000,000.00) and a merchant routed to it. */
export async function bankSetup(s: TestServer, opts: { dailyLimit?: string } = {}): Promise<BankSetup> {
  const root = await s.adminToken();
  const channel = await ok(
    s.call(
      endpoints.channel.create,
      {
        code: `bank${++seq}${Date.now().toString(36).slice(-5)}`,
        name: 'Bank collections',
        adapter: 'bank',
        minAmount: '1.00',
        maxAmount: '1000000.00',
      },
      root,
    ),
  );
  const account = await ok(
    s.call(
      endpoints.receivingAccount.create,
      {
        kind: 'public',
        bankName: 'HDFC Bank',
        accountName: 'Acme Collections Pvt Ltd',
        accountNumber: accountNo(),
        ifsc: 'HDFC0001234',
        vpa: 'acme.collect@hdfcbank',
        dailyLimit: opts.dailyLimit ?? '1000000.00',
      },
      root,
    ),
  );
  await ok(
    s.call(endpoints.cardBinding.create, { accountId: account.id, channelId: channel.id, weight: 100 }, root),
  );
  const merchant = await s.makeMerchant({ channels: [{ channelId: channel.id, weight: 100 }] });
  return { root, channelId: channel.id, accountId: account.id, merchant };
}

/** A pay-in through the gateway (its body overridable), as stored. */
export async function bankPayin(s: TestServer, m: Merchant, overrides: Record<string, unknown> = {}) {
  const res = await s.gateway(m, 'POST', '/gateway/v1/payin', payinBody(overrides));
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.json)}`);
  const [order] = await s.db.select().from(payinOrders).where(eq(payinOrders.orderNo, res.json.data.orderNo));
  return {
    order: order!,
    answer: res.json.data as { orderNo: string; payUrl: string } & Record<string, unknown>,
  };
}
