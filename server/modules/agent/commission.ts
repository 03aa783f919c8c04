/**
 * Agents' commission (`agentCommission.*`, OPERATIONS.md section 4). A paid pay-in of an agent's merchant
 * makes the agent's commission payable (`agent_commission_payable`, posted with the payment). The statement
 * reads what each merchant of the agent brought from the order statistics' rollup (`order_stats_daily`:
 * pay-ins created in the period and paid, their commission), never the orders, with the payable balance
 * and the period's payments. A payment is one journal entry (`agent_commission_payment`/`commission_paid`):
 * the agent's payable down, `settlement_clearing` up, the side every payment to a bank takes (a settlement's
 * completion). The ledger refuses a payment past the payable balance (errno insufficientBalance); the
 * reference is unique per agent (errno referenceTaken). Above the `maker_checker_threshold` a payment waits
 * for a second platform user (`agentCommission.pay`, one pending per agent and currency).
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { commissionPaymentRow } from '../../../contract/endpoints/adjustment.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor, ppmToPercent } from '../../../contract/money.ts';
import { type Db, sqlState } from '../../db/index.ts';
import { agentCommissionPayments, agents, ledgerAccounts, users } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError, foundOne } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { agentAccount, drawId, platformAccount, postForEntryId, rowsOf } from '../../ledger/index.ts';
import { storedZone } from '../../lib/businessDay.ts';
import { agentWallet, aloneOrApproval } from '../approval/doors.ts';
import { approvalRequested, onApproved } from '../approval/service.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { storedOrderStatsZone } from '../dashboard/stats.ts';
import { periodOf } from '../stat/period.ts';

type Payment = typeof agentCommissionPayments.$inferSelect;
type PaymentRow = z.output<typeof commissionPaymentRow>;

/** The journal entry's cause: `(agent_commission_payment, <payment id>, commission_paid)`. */
export const commissionPaymentRefType = 'agent_commission_payment';

/** A payment as the request records it and the approval replays it. */
interface PaymentOrder {
  agentId: number;
  currency: string;
  amount: number;
  reference: string;
  note: string;
}

async function agentById(tx: Db, id: number) {
  return foundOne(tx.select().from(agents).where(eq(agents.id, id)));
}

async function payableOf(tx: Db, agentId: number, currency: string): Promise<number> {
  const [row] = await tx
    .select({ balance: ledgerAccounts.balance })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.ownerType, 'agent'),
        eq(ledgerAccounts.ownerId, agentId),
        eq(ledgerAccounts.kind, 'agent_commission_payable'),
        eq(ledgerAccounts.currency, currency),
      ),
    );
  return row?.balance ?? 0;
}

async function referenceUsed(tx: Db, agentId: number, reference: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: agentCommissionPayments.id })
    .from(agentCommissionPayments)
    .where(
      and(eq(agentCommissionPayments.agentId, agentId), eq(agentCommissionPayments.reference, reference)),
    );
  return !!row;
}

/**
 * Pays the commission out: the entry first (the ledger refuses a payment past the payable balance), then
 * the row naming it. A reference another payment took meanwhile is referenceTaken (the transaction rolls back).
 */
async function payCommission(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  p: PaymentOrder,
  paidBy: number,
): Promise<Payment> {
  if (await referenceUsed(tx, p.agentId, p.reference)) throw new AppError(errno.referenceTaken);
  const at = deps.clock.now();
  const id = await drawId(tx, 'agent_commission_payments');
  const entryId = await postForEntryId(tx, {
    kind: 'commission_paid',
    refType: commissionPaymentRefType,
    refId: id,
    memo: p.reference,
    userId: paidBy,
    at,
    lines: [
      { account: agentAccount(p.agentId, p.currency), amount: -p.amount },
      { account: platformAccount('settlement_clearing', p.currency), amount: p.amount },
    ],
  });
  try {
    // A savepoint: the unique reference's refusal must not abort the transaction before we answer it.
    return await tx.transaction(async (sp) => {
      const [row] = await sp
        .insert(agentCommissionPayments)
        .values({ id, ...p, paidBy, entryId, createdAt: at })
        .returning();
      return row!;
    });
  } catch (err) {
    if (sqlState(err) === '23505') throw new AppError(errno.referenceTaken);
    throw err;
  }
}

async function paymentRows(tx: Db, rows: readonly Payment[]): Promise<PaymentRow[]> {
  if (!rows.length) return [];
  const ids = [...new Set(rows.map((r) => r.paidBy))];
  const names = new Map(
    (
      await tx.select({ id: users.id, username: users.username }).from(users).where(inArray(users.id, ids))
    ).map((u) => [u.id, u.username]),
  );
  return rows.map((r) => ({
    id: r.id,
    agentId: r.agentId,
    currency: r.currency,
    amount: formatMinor(r.amount),
    reference: r.reference,
    note: r.note,
    paidBy: names.get(r.paidBy) ?? String(r.paidBy),
    createdAt: r.createdAt.toISOString(),
  }));
}

// Above the threshold the payment runs when a second platform user approves it, in their name.
onApproved('agentCommission.pay', async (deps, tx, request, approverId) => {
  const row = await payCommission(deps, tx, request.payload as unknown as PaymentOrder, approverId);
  return { detail: { payment: row.id, reference: row.reference, amount: formatMinor(row.amount) } };
});

export const commissionRoutes = [
  handle(endpoints.agentCommission.statement, async ({ input, tx, deps, req }) => {
    const a = await agentById(tx, input.agentId);
    const { from, to } = await periodOf(tx, deps, input, req);
    // Every merchant of the agent, with what its pay-ins created in the period and paid brought.
    const rows = rowsOf<{
      merchant_id: number;
      code: string;
      name: string;
      currency: string;
      paid_count: string;
      paid_amount: string;
      commission: string;
    }>(
      await tx.execute(sql`
        select m.id as merchant_id, m.code, m.name, coalesce(s.currency, m.currency) as currency,
          coalesce(sum(s.success_count), 0)::text as paid_count,
          coalesce(sum(s.success_amount), 0)::text as paid_amount,
          coalesce(sum(s.success_commission), 0)::text as commission
        from merchants m
        left join order_stats_daily s on s.merchant_id = m.id and s.kind = 'payin'
          and s.day between ${from}::date and ${to}::date
        where m.agent_id = ${a.id}
        group by m.id, m.code, m.name, coalesce(s.currency, m.currency)
        order by m.code, 4`),
    );
    const totals = new Map<string, { paidCount: number; paidAmount: bigint; commission: bigint }>();
    for (const r of rows) {
      const t = totals.get(r.currency) ?? { paidCount: 0, paidAmount: 0n, commission: 0n };
      t.paidCount += Number(r.paid_count);
      t.paidAmount += BigInt(r.paid_amount);
      t.commission += BigInt(r.commission);
      totals.set(r.currency, t);
    }
    const payable = await tx
      .select({ currency: ledgerAccounts.currency, balance: ledgerAccounts.balance })
      .from(ledgerAccounts)
      .where(
        and(
          eq(ledgerAccounts.ownerType, 'agent'),
          eq(ledgerAccounts.ownerId, a.id),
          eq(ledgerAccounts.kind, 'agent_commission_payable'),
        ),
      )
      .orderBy(ledgerAccounts.currency);
    const zone = await storedOrderStatsZone(tx);
    // Payments of the period's business days (an agent has a handful a month: its index reads them all).
    const payments = await tx
      .select()
      .from(agentCommissionPayments)
      .where(
        and(
          eq(agentCommissionPayments.agentId, a.id),
          sql`(${agentCommissionPayments.createdAt} at time zone ${storedZone})::date between ${from}::date and ${to}::date`,
        ),
      )
      .orderBy(desc(agentCommissionPayments.createdAt), desc(agentCommissionPayments.id));
    return {
      agentId: a.id,
      agentCode: a.code,
      agentName: a.name,
      commissionRate: ppmToPercent(a.commissionPpm),
      from,
      to,
      businessTimeZone: zone,
      rows: rows.map((r) => ({
        merchantId: Number(r.merchant_id),
        merchantCode: r.code,
        merchantName: r.name,
        currency: r.currency,
        paidCount: Number(r.paid_count),
        paidAmount: formatMinor(BigInt(r.paid_amount)),
        commission: formatMinor(BigInt(r.commission)),
      })),
      totals: [...totals].map(([currency, t]) => ({
        currency,
        paidCount: t.paidCount,
        paidAmount: formatMinor(t.paidAmount),
        commission: formatMinor(t.commission),
      })),
      payable: payable.map((p) => ({ currency: p.currency, balance: formatMinor(p.balance) })),
      payments: await paymentRows(tx, payments),
    };
  }),

  handle(endpoints.agentCommission.pay, async ({ input, user, tx, deps, req, audit }) => {
    const a = await agentById(tx, input.agentId);
    const order: PaymentOrder = {
      agentId: a.id,
      currency: input.currency,
      amount: input.amount,
      reference: input.reference,
      note: input.note ?? '',
    };
    const described = {
      amount: formatMinor(input.amount),
      currency: input.currency,
      reference: input.reference,
    };
    audit({ target: `agent:${a.id}`, detail: described });
    // Refused before the code is spent or anyone asked; both are checked again when the money moves.
    if (await referenceUsed(tx, a.id, input.reference)) throw new AppError(errno.referenceTaken);
    if ((await payableOf(tx, a.id, input.currency)) < input.amount)
      throw new AppError(errno.insufficientBalance);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const request = await aloneOrApproval(
      deps,
      tx,
      'agentCommission.pay',
      user.id,
      { amount: input.amount, wallet: agentWallet(a.id, input.currency), ref: `agent:${a.id}` },
      {
        refType: 'agent_commission',
        refId: `${a.id}:${input.currency}`,
        merchantId: null,
        currency: input.currency,
        payload: { ...order },
        reason: input.note || input.reference,
      },
    );
    if (request) return approvalRequested(audit, request, described);
    const row = await payCommission(deps, tx, order, user.id);
    audit({ target: `agentCommissionPayment:${row.id}`, detail: { ...described, agent: a.code } });
    return (await paymentRows(tx, [row]))[0]!;
  }),
];
