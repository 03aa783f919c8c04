/** The money of a settlement: its hold, the journal entries that move it, its USDT amount. */
import { sql } from 'drizzle-orm';
import { heldKind } from '../../../contract/ledgerKinds.ts';
import type { Db } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { type Entry, merchantAccount, platformAccount, post, rowsOf } from '../../ledger/index.ts';
import { type Settlement, settlementRefType, walletAccountKind } from './views.ts';

/** What a settlement pays: the amount the platform approved once confirmed, else the one applied for. */
export const paidOf = (s: Pick<Settlement, 'amount' | 'auditAmount'>) => s.auditAmount ?? s.amount;

/** How much the hold holds now: what the settlement pays plus the fee. */
export const heldOf = (s: Pick<Settlement, 'amount' | 'auditAmount' | 'fee'>) => paidOf(s) + s.fee;

/**
 * The journal entry of a step of a settlement's hold: a step with `by` moves that much from the wallet to
 * frozen (a negative `by` moves it back: a lower amount, a confirmation below it, the release);
 * `settlement_paid` spends the hold: the audit amount leaves through settlement clearing, the fee is the
 * platform's income. The demo's writer posts the same entries.
 */
export function settlementEntry(
  s: Pick<
    Settlement,
    'id' | 'merchantId' | 'wallet' | 'currency' | 'settlementNo' | 'amount' | 'auditAmount' | 'fee'
  >,
  step: { kind: string; by: number } | { kind: 'settlement_paid' },
  userId: number | null,
  at: Date,
): Entry {
  const wallet = merchantAccount(s.merchantId, walletAccountKind[s.wallet], s.currency);
  const frozen = merchantAccount(s.merchantId, 'frozen', s.currency);
  const base = { kind: step.kind, refType: settlementRefType, refId: s.id, memo: s.settlementNo, userId, at };
  if ('by' in step) {
    return {
      ...base,
      lines: [
        { account: wallet, amount: -step.by },
        { account: frozen, amount: step.by },
      ],
    };
  }
  const paid = paidOf(s);
  return {
    ...base,
    lines: [
      { account: frozen, amount: -(paid + s.fee) },
      { account: platformAccount('settlement_clearing', s.currency), amount: paid },
      ...(s.fee > 0 ? [{ account: platformAccount('fee_income', s.currency), amount: s.fee }] : []),
    ],
  };
}

/** The next `settlement_hold_<n>` of a settlement (its row locked by the transition just made: n is its own). */
async function nextHoldKind(tx: Db, id: number): Promise<string> {
  const [row] = rowsOf<{ n: number }>(
    await tx.execute(sql`
      select count(*)::int as n from journal_entries
      where ref_type = ${settlementRefType} and ref_id = ${String(id)} and kind like 'settlement\\_hold%'`),
  );
  return heldKind('settlement_hold', Number(row?.n ?? 0) + 1);
}

/** Moves the hold by `by` (positive: more frozen from the wallet; 1019 when the wallet is short). */
export async function changeHold(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: Settlement,
  by: number,
  userId: number | null,
) {
  if (by === 0) return;
  await post(tx, settlementEntry(s, { kind: await nextHoldKind(tx, s.id), by }, userId, deps.clock.now()));
}

/** USDT for `auditMinor` at `price` units per USDT, rounded down to 6 decimals, in integers throughout. */
export function usdtAmountOf(auditMinor: number, price: string): string {
  const [whole = '0', frac = ''] = price.split('.');
  const priceMicro = BigInt(whole) * 1_000_000n + BigInt(frac.padEnd(6, '0').slice(0, 6));
  // (audit / 100) / (priceMicro / 10^6) USDT, in millionths: audit × 10^10 / priceMicro.
  const micro = (BigInt(auditMinor) * 10_000_000_000n) / priceMicro;
  return `${micro / 1_000_000n}.${String(micro % 1_000_000n).padStart(6, '0')}`;
}
