/**
 * The day's sums of maker–checker (contract/doors.ts): before a door lets a person decide money alone,
 * what that user decided alone, what the wallet received or lost that way (both over the last 24 hours)
 * and what the person's statement paid in total must leave room for this decision under the
 * `maker_checker_threshold` parameter. A decision that fits is written to `decisions_alone` in the
 * caller's transaction (a rolled-back decision leaves no row); one that does not fit is for a second
 * person (the door records an approval request, or refuses so that another user does it).
 *
 * The sums are read under transaction-scoped advisory locks on each key, taken in one order, so two
 * decisions of one user (or on one wallet) at once are judged one after the other: splitting a sum into
 * concurrent calls finds the same limit as calls in a row.
 */
import { sql } from 'drizzle-orm';
import { type DoorId, type MoneyDoor, moneyDoors } from '../../../contract/doors.ts';
import type { Db } from '../../db/index.ts';
import { decisionsAlone } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { rowsOf } from '../../ledger/index.ts';
import { readParameter } from '../../lib/parameters.ts';
import { alertNearThreshold } from '../telegram/service.ts';
import { type Approval, type ApprovalRequest, requestApproval } from './service.ts';

/** How far back the day's sums reach: a rolling business day. */
export const dailyWindowMs = 24 * 60 * 60 * 1000;

/** A merchant's wallet as the day's sums name it (collection covers available and pending). */
export const merchantWallet = (merchantId: number, wallet: 'collection' | 'payout', currency: string) =>
  `merchant:${merchantId}:${wallet}:${currency}`;
export const agentWallet = (agentId: number, currency: string) => `agent:${agentId}:${currency}`;
/** A person's statement as the day's sums name it: its total paid alone counts, however long ago. */
export const statementEvidence = (importId: number) => `statementImport:${importId}`;

export interface Decision {
  /** Minor units, above zero. */
  amount: number;
  wallet: string;
  /** The object decided on: `payin:12`, `statementLine:40`. */
  ref: string;
  evidence?: string | null;
}

const keysOf = (userId: number, d: Decision) =>
  [`user:${userId}`, `wallet:${d.wallet}`, ...(d.evidence ? [`evidence:${d.evidence}`] : [])].sort();

/**
 * Takes the advisory locks of every decision a transaction is about to judge, in one order: a door that
 * judges several at once (a slip's lines) calls it first, so two such transactions never wait on each
 * other crosswise. Judging takes each decision's locks again (they stack, within the transaction).
 */
export async function lockDecisions(tx: Db, userId: number, decisions: readonly Decision[]): Promise<void> {
  const keys = [...new Set(decisions.flatMap((d) => keysOf(userId, d)))].sort();
  for (const key of keys)
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`alone:${key}`}, 0))`);
}

/** The sums a decision is judged against, and the threshold (minor units). */
export async function daySums(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  userId: number,
  d: Pick<Decision, 'wallet' | 'evidence'>,
): Promise<{ user: number; wallet: number; evidence: number; threshold: number }> {
  const since = new Date(deps.clock.now().getTime() - dailyWindowMs).toISOString();
  const evidence = d.evidence ?? null;
  const [row] = rowsOf<{ by_user: string; by_wallet: string; by_evidence: string }>(
    await tx.execute(sql`
      select
        coalesce(sum(amount) filter (where user_id = ${userId} and at > ${since}::timestamptz), 0) as by_user,
        coalesce(sum(amount) filter (where wallet = ${d.wallet} and at > ${since}::timestamptz), 0) as by_wallet,
        coalesce(sum(amount) filter (where evidence = ${evidence}), 0) as by_evidence
      from ${decisionsAlone}
      where (user_id = ${userId} and at > ${since}::timestamptz)
        or (wallet = ${d.wallet} and at > ${since}::timestamptz)
        or evidence = ${evidence}`),
  );
  return {
    user: Number(row?.by_user ?? 0),
    wallet: Number(row?.by_wallet ?? 0),
    evidence: Number(row?.by_evidence ?? 0),
    threshold: await readParameter(tx, 'maker_checker_threshold'),
  };
}

const fitsIn = (sums: Awaited<ReturnType<typeof daySums>>, amount: number) =>
  [sums.user, sums.wallet, sums.evidence].every((sum) => sum + amount <= sums.threshold);

/**
 * Whether `userId` could decide `d` alone now, writing nothing: for the checks a door makes before the
 * user's Google code is spent (the decision itself is judged again, under the locks, by `decideAlone`).
 */
export async function fitsAlone(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  userId: number,
  d: Decision,
): Promise<boolean> {
  return fitsIn(await daySums(deps, tx, userId, d), d.amount);
}

/**
 * Judges `userId`'s decision at `door`: when it fits the day's sums (the user's, the wallet's and the
 * statement's, each with this amount at or under the threshold) it is recorded as decided alone and
 * answers true; otherwise nothing is written and it answers false (a second person must decide). Call it
 * after the user's Google code is accepted: a refusal returned after it would commit the record.
 */
export async function decideAlone(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  door: DoorId,
  userId: number,
  d: Decision,
): Promise<boolean> {
  await lockDecisions(tx, userId, [d]);
  const sums = await daySums(deps, tx, userId, d);
  if (!fitsIn(sums, d.amount)) return false;
  const at = deps.clock.now();
  await tx.insert(decisionsAlone).values({
    door,
    userId,
    wallet: d.wallet,
    evidence: d.evidence ?? null,
    amount: d.amount,
    ref: d.ref,
    at,
  });
  await watchNearThreshold(deps, tx, door, userId, d, sums.threshold);
  return true;
}

/**
 * A door whose second person approves (`secondPerson: 'approval'`): the decision is taken alone when it
 * fits the day's sums (answers null: the caller acts), else it is recorded as the door's approval request
 * for a second platform user (answered: the caller refuses with `approvalRequested`).
 */
export async function aloneOrApproval(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  door: DoorId,
  userId: number,
  d: Decision,
  request: Omit<ApprovalRequest, 'action' | 'amount'>,
): Promise<Approval | null> {
  if (await decideAlone(deps, tx, door, userId, d)) return null;
  const action = (moneyDoors[door] as MoneyDoor).approval;
  if (!action) throw new Error(`door ${door} has no approval request`);
  return requestApproval(deps, tx, { ...request, action, amount: d.amount }, userId);
}

/**
 * A decision on one merchant's wallet, described once: the day's sums judge it on that wallet, and the
 * approval request (when it is for a second person) names the same merchant and currency.
 */
export interface MerchantWalletDecision extends Omit<ApprovalRequest, 'action' | 'amount' | 'merchantId'> {
  merchantId: number;
  wallet: 'collection' | 'payout';
  /** Minor units: what the day's sums and the threshold judge. */
  amount: number;
  /** The object decided on, as the day's sums name it (`payout:PO…`). */
  ref: string;
}

/** `aloneOrApproval` of a decision on a merchant's wallet. */
export function aloneOrApprovalOnMerchant(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  door: DoorId,
  userId: number,
  d: MerchantWalletDecision,
): Promise<Approval | null> {
  const { wallet, amount, ref, ...request } = d;
  const decision = { amount, wallet: merchantWallet(d.merchantId, wallet, d.currency), ref };
  return aloneOrApproval(deps, tx, door, userId, decision, request);
}

/** An amount at or above this share of the threshold is "just below" it. */
export const nearThresholdShare = 0.9;
/** How far back a repeat of such an amount is looked for. */
export const nearThresholdWindowMs = 7 * dailyWindowMs;

/**
 * Repeated amounts just below the threshold (one user, or one wallet, twice within a week) are how
 * a sum is split past the day's rule: the groups that asked hear of it (Telegram `nearThreshold`).
 */
async function watchNearThreshold(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  door: DoorId,
  userId: number,
  d: Decision,
  threshold: number,
): Promise<void> {
  const floor = Math.ceil(threshold * nearThresholdShare);
  if (d.amount < floor) return;
  const since = new Date(deps.clock.now().getTime() - nearThresholdWindowMs).toISOString();
  const [row] = rowsOf<{ n: number }>(
    await tx.execute(sql`
      select count(*)::int as n from ${decisionsAlone}
      where amount >= ${floor} and at > ${since}::timestamptz
        and (user_id = ${userId} or wallet = ${d.wallet})`),
  );
  if ((row?.n ?? 0) < 2) return;
  await alertNearThreshold(deps, tx, {
    door,
    userId,
    wallet: d.wallet,
    ref: d.ref,
    amount: d.amount,
    threshold,
    count: row!.n,
  });
}
