/**
 * Collection into accounts the platform controls (OPERATIONS.md section 2), after the 30 days: a bank
 * channel with one public account and three donor cards (two holders) for Masala Mart, its pay-ins of the
 * two days before today, what its payers said on the pay page, and the banks' statements imported today, so the
 * exception queue has work: credits that paid their orders, one amount mismatch, one ambiguous credit,
 * one proposal, one unmatched credit, and bank charges set aside.
 *
 * It runs once the timeline is done: the orders are created at their past moments (creation moves no
 * money), and the statements arrive now, as a bank's download the morning after does, so every payment
 * they prove is posted at the end of the ledger, where a live system would post it.
 */
import { and, eq } from 'drizzle-orm';
import { endpoints } from '../../contract/index.ts';
import { statementLine } from '../../contract/machines.ts';
import { formatMinor } from '../../contract/money.ts';
import {
  accountHolders,
  cardBindings,
  channels,
  holderNumbers,
  merchantChannels,
  payinOrders,
  receivingAccounts,
  statementLines,
  statementMappings,
} from '../db/schema.ts';
import { createPayin } from '../modules/payin/creation.ts';
import { transition } from '../modules/payin/state.ts';
import type { PayinOrder } from '../modules/payin/views.ts';
import { postLines, readyLinesOf } from '../modules/statement/posting.ts';
import { statementPresets } from '../modules/statement/presets.ts';
import { importStatement } from '../modules/statement/service.ts';
import { day, hour, ist, minute, rupees } from './business.ts';
import { type DemoMerchant, merchantOrderNoOf, notifyUrlAt } from './merchants.ts';
import type { Actor, Seed } from './seed.ts';

/** The bank channel's code: Masala Mart's pay-ins may name it. */
export const demoBankChannel = 'bank_upi';

type Account = typeof receivingAccounts.$inferSelect;

/** One credit or debit of a demo statement, before it is written in the bank's layout. */
interface Credit {
  at: number;
  amount: number;
  /** The payer's UTR (the bank's reference for UPI); none for a cash or cheque deposit. */
  utr: string | null;
  payer: string;
  debit?: boolean;
}

/** A pay-in of `m` made through the demo's bank channel at `at`, as its server would have asked. */
export async function bankPayinAt(
  seed: Seed,
  m: DemoMerchant,
  at: number,
  amount: number,
): Promise<PayinOrder> {
  const { tx, deps, clock } = seed;
  clock.set(new Date(at));
  const { order } = await createPayin(
    deps,
    tx,
    m.row,
    {
      merchantOrderNo: merchantOrderNoOf(seed, m, at),
      amount,
      notifyUrl: notifyUrlAt(seed, m, at),
      channel: demoBankChannel,
    },
    { source: 'api', ip: m.spec.serverIp, lang: 'en' },
  );
  seed.takenNos.add(order.orderNo);
  return order;
}

export async function openReceiving(
  seed: Seed,
  ms: readonly DemoMerchant[],
  { finance, operator }: { finance: Actor; operator: Actor },
) {
  const { tx, rnd, now, clock, deps } = seed;
  const masala = ms.find((m) => m.spec.code === 'M10003');
  if (!masala) throw new Error('demo: Masala Mart is missing');
  const created = new Date(now - 3 * day);

  const [bank] = await tx
    .insert(channels)
    .values({
      code: demoBankChannel,
      name: 'UPI bank collections',
      adapter: 'bank',
      // The bank's charge for a collection into our accounts: 0.2 %.
      payinCostPpm: 2_000,
      minAmount: rupees(10),
      maxAmount: rupees(100_000),
      supportsPayout: false,
      createdAt: created,
      updatedAt: created,
    })
    .returning();
  const holders = await tx
    .insert(accountHolders)
    .values([
      {
        name: 'Ravi Kumar',
        phone: '+919812345678',
        idNumber: 'ABCPK1234F',
        commissionPpm: 5_000,
        createdAt: created,
      },
      {
        name: 'Meera Shah',
        phone: '+919898761234',
        idNumber: 'BQRPS5678K',
        commissionPpm: 6_000,
        createdAt: created,
      },
    ])
    .returning();
  const [ravi, meera] = [holders[0]!, holders[1]!];
  const account = (v: Partial<typeof receivingAccounts.$inferInsert>) =>
    ({
      dailyCount: 200,
      minAmount: rupees(10),
      createdAt: created,
      updatedAt: created,
      ...v,
    }) as typeof receivingAccounts.$inferInsert;
  const accounts = await tx
    .insert(receivingAccounts)
    .values([
      account({
        kind: 'public',
        bankName: 'ICICI Bank',
        accountName: 'Acme Payments Pvt Ltd',
        accountNumber: '001905012345',
        ifsc: 'ICIC0000019',
        vpa: 'acmepay@icici',
        dailyLimit: rupees(2_000_000),
        dailyCount: null,
      }),
      account({
        kind: 'card',
        bankName: 'HDFC Bank',
        accountName: 'Ravi Kumar',
        accountNumber: '50100234567812',
        ifsc: 'HDFC0001234',
        vpa: 'ravi.kumar@okhdfcbank',
        dailyLimit: rupees(100_000),
        maxAmount: rupees(10_000),
        holderId: ravi.id,
      }),
      account({
        kind: 'card',
        bankName: 'State Bank of India',
        accountName: 'Ravi Kumar',
        accountNumber: '38912345678',
        ifsc: 'SBIN0004321',
        vpa: 'ravik@sbi',
        dailyLimit: rupees(50_000),
        maxAmount: rupees(5_000),
        holderId: ravi.id,
      }),
      account({
        kind: 'card',
        bankName: 'Axis Bank',
        accountName: 'Meera Shah',
        accountNumber: '917010045678123',
        ifsc: 'UTIB0000456',
        vpa: 'meera.shah@axisbank',
        dailyLimit: rupees(80_000),
        maxAmount: rupees(10_000),
        holderId: meera.id,
        status: 'paused',
      }),
    ])
    .returning();
  const [pub, hdfc, sbi, axis] = accounts as [Account, Account, Account, Account];
  await tx.insert(holderNumbers).values([
    {
      holderId: ravi.id,
      kind: 'phone',
      value: '+919812345678',
      accountIds: [hdfc.id, sbi.id],
      createdAt: created,
    },
    {
      holderId: ravi.id,
      kind: 'upi',
      value: 'ravi.kumar@okhdfcbank',
      accountIds: [hdfc.id],
      createdAt: created,
    },
    { holderId: meera.id, kind: 'phone', value: '+919898761234', accountIds: [axis.id], createdAt: created },
  ]);

  // The orders of the last two days land on the public account (the only one bound then), so the
  // statement below can hold the ambiguous pair; the cards are bound after them.
  await tx
    .insert(cardBindings)
    .values({ accountId: pub.id, channelId: bank!.id, weight: 100, createdAt: created });
  await tx.insert(merchantChannels).values({ merchantId: masala.row.id, channelId: bank!.id, weight: 100 });

  const make = (at: number, amount: number) => bankPayinAt(seed, masala, at, amount);
  const todayIst = seed.todayIst;
  const yesterday = todayIst - day;
  /** A moment of yesterday (IST), `h` hours after its midnight (a negative `h`: the day before). */
  const y = (h: number) => yesterday + h * hour + Math.floor(rnd.random() * 40) * minute;

  // Paid, proved by their payers' UTRs on the statement: three the day before yesterday, three yesterday.
  const paidAmounts = [499, 1_250, 299, 2_000, 749, 3_500].map(rupees);
  const paid: { order: PayinOrder; utr: string }[] = [];
  for (const [i, amount] of paidAmounts.entries()) {
    const order = await make(i < 3 ? y(10 + i * 3 - 24) : y(9 + (i - 3) * 2), amount);
    paid.push({ order, utr: seed.newUtr() });
  }
  // The payer typed the UTR of a payment of another amount: the statement shows 500.00 for 5,000.00.
  const mismatch = await make(y(12.5), rupees(5_000));
  const mismatchUtr = seed.newUtr();
  // Two orders of 1,000.00 and a credit of 1,000.00 naming neither: ambiguous.
  const twinA = await make(y(15), rupees(1_000));
  const twinB = await make(y(16), rupees(1_000));
  // One order of 777.00 and a credit of 777.00 without its UTR: proposed for one click.
  const single = await make(y(18), rupees(777));
  // Never paid: expired.
  const abandoned = await make(y(19.5), rupees(650));

  // What the payers said on the pay page (never trusted by itself).
  for (const p of paid)
    await tx.update(payinOrders).set({ payerUtr: p.utr }).where(eq(payinOrders.id, p.order.id));
  await tx.update(payinOrders).set({ payerUtr: mismatchUtr }).where(eq(payinOrders.id, mismatch.id));

  // Expired by the job as it would have (an unpaid order may still be proved paid by the statement).
  for (const o of [...paid.map((p) => p.order), mismatch, twinA, twinB, single, abandoned]) {
    clock.set(new Date(o.expiresAt.getTime() + 30_000));
    await transition(deps, tx, o.id, 'expire');
  }

  // The cards join the channel; two of today's orders, still open, show the pay page.
  await tx.insert(cardBindings).values([
    { accountId: hdfc.id, channelId: bank!.id, weight: 60, createdAt: new Date(todayIst) },
    {
      accountId: sbi.id,
      channelId: bank!.id,
      weight: 40,
      merchantIds: [masala.row.id],
      createdAt: new Date(todayIst),
    },
    { accountId: axis.id, channelId: bank!.id, weight: 40, createdAt: new Date(todayIst) },
  ]);
  await make(now - 6 * minute, rupees(399));
  await make(now - 2 * minute, rupees(1_499));
  clock.set(new Date(now));

  const credits: Credit[] = [
    ...paid.map((p) => ({
      at: p.order.createdAt.getTime() + 3 * minute,
      amount: p.order.amount,
      utr: p.utr,
      payer: 'UPI PAYER',
    })),
    {
      at: mismatch.createdAt.getTime() + 4 * minute,
      amount: rupees(500),
      utr: mismatchUtr,
      payer: 'ANIL VERMA',
    },
    {
      at: twinB.createdAt.getTime() + 5 * minute,
      amount: rupees(1_000),
      utr: seed.newUtr(),
      payer: 'POOJA NAIR',
    },
    {
      at: single.createdAt.getTime() + 3 * minute,
      amount: rupees(777),
      utr: seed.newUtr(),
      payer: 'K SURESH',
    },
    { at: y(20.5), amount: rupees(2_350), utr: seed.newUtr(), payer: 'UNKNOWN SENDER' },
    { at: y(23), amount: rupees(17.7), utr: null, payer: 'CHARGES', debit: true },
  ].sort((a, b) => a.at - b.at);

  // This morning's download of the public account, imported by the operator through the real service
  // (evidence: its credits are ready to post) and posted by the finance user (the money decision, well
  // under the day's sums): the credits pay their orders, the rest waits in the queue; the bank's charges
  // are set aside.
  const icici = statementPresets.find((p) => p.id === 'icici')!;
  const [mapping] = await tx
    .insert(statementMappings)
    .values({
      name: 'ICICI current account',
      bankName: icici.bankName,
      mapping: icici.mapping,
      createdBy: finance.id,
    })
    .returning();
  const text = iciciStatement(credits, rupees(184_250.4));
  const answer = await importStatement(
    seed.depsInSeed,
    operator.id!,
    {
      accountId: pub.id,
      mappingId: mapping!.id,
      file: Buffer.from(text).toString('base64'),
      fileName: 'OpTransactionHistory.csv',
    },
    'en',
  );
  seed.opLog(now, operator, endpoints.statement.import.id, `receivingAccount:${pub.id}`, {
    fileName: 'OpTransactionHistory.csv',
    lines: answer.counts.lines,
  });
  const reason = 'ICICI statement of this morning';
  const posted = await postLines(
    seed.depsInSeed,
    await readyLinesOf(tx, answer.importId!),
    reason,
    finance.id!,
    'en',
  );
  seed.opLog(now + 30_000, finance, endpoints.statement.accept.id, `statementImport:${answer.importId}`, {
    reason,
    matched: posted.matched,
  });
  const [charges] = await tx
    .select({ id: statementLines.id })
    .from(statementLines)
    .where(and(eq(statementLines.accountId, pub.id), eq(statementLines.direction, 'debit')));
  if (charges) {
    await tx
      .update(statementLines)
      .set({
        status: statementLine.to('dismiss')!,
        exceptionKind: null,
        reason: 'Bank SMS charges',
        resolvedBy: finance.id,
        resolvedAt: new Date(now),
      })
      .where(eq(statementLines.id, charges.id));
    seed.opLog(now + 60_000, finance, endpoints.statement.dismiss.id, `statementLine:${charges.id}`, {
      reason: 'Bank SMS charges',
    });
  }
  return { ...answer.counts, matched: answer.counts.matched + posted.matched };
}

/** `dd/MM/yyyy` of the IST day of `t`. */
const istDate = (t: number) => {
  const d = new Date(t + ist);
  return `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`;
};
const csvCell = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/**
 * The public account's statement in ICICI Bank's download layout (docs/STATEMENTS.md, preset `icici`):
 * UPI credits narrate `UPI/<UTR>/<payer>/…`; a UPI reference a payer quotes is the bank's RRN.
 */
export function iciciStatement(credits: readonly Credit[], opening: number): string {
  const head = [
    'Transaction Date',
    'Value Date',
    'Transaction Remarks',
    'Cheque Number',
    'Withdrawal Amount (INR )',
    'Deposit Amount (INR )',
    'Balance (INR )',
  ];
  let balance = opening;
  const rows = credits.map((c) => {
    balance += c.debit ? -c.amount : c.amount;
    const remarks = c.debit
      ? 'SMS CHARGES INCL GST'
      : c.utr
        ? `UPI/${c.utr}/${c.payer}/PAYMENT/ICI`
        : `BY CASH DEPOSIT/${c.payer}`;
    return [
      istDate(c.at),
      istDate(c.at),
      remarks,
      '',
      c.debit ? formatMinor(c.amount) : '',
      c.debit ? '' : formatMinor(c.amount),
      formatMinor(balance),
    ]
      .map(csvCell)
      .join(',');
  });
  return `${head.map(csvCell).join(',')}\n${rows.join('\n')}\n`;
}
