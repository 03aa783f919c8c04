/**
 * The doors through which money moves on a person's word (OPERATIONS.md section 1, "Maker–checker";
 * RELIABILITY.md P25), each declared once with its controls. The server's handlers read their door here
 * (`server/modules/approval/doors.ts` applies it), `docs/SECURITY.md` lists the same table, and a test
 * holds the table, the declaration and the doors' behaviour together: a door without the code, a
 * requester approving itself and a sum split into calls under the threshold are each refused.
 *
 * The rule of the day's sums: what one platform user decided without a second person, and what one
 * wallet (a merchant's collection or payout wallet, an agent's commission) received or lost that way,
 * summed over the last 24 hours, stays at or under the `maker_checker_threshold` parameter; what one
 * person's statement (an uploaded file or pasted text) pays without a second person stays under it in
 * total. Beyond it the door either records an approval request a second platform user decides
 * (`approval`: never the requester, never the importer of the statement it pays from) or refuses, so
 * that another user does it (`anotherUser`).
 */
import type { Endpoint } from './endpoint.ts';
import type { ApprovalAction } from './endpoints/approval.ts';
import { endpoints } from './index.ts';

/** What the door does to money (`writesOff`: a merchant's hold spent on a bank's word, a loss). */
export type DoorMove = 'pays' | 'completes' | 'credits' | 'releases' | 'writesOff';

/**
 * What stands in for a person's reason: a typed `reason`, the bank's `reference` (a completion names
 * the transfer that proves it), or the merchant's own `application` (a settlement's confirmation
 * decides on what the merchant asked for).
 */
export type DoorReason = 'reason' | 'reference' | 'application';

/**
 * Who is the second person: `approval` (beyond the day's sums a request waits for a second platform
 * user), `anotherUser` (beyond them, or always for what the user confirmed, another user must do it),
 * `confirmer` (never the user who confirmed the object, or for an account freeze the user who recorded
 * it, or for a dispute the user who opened it: two people always), `none` (no second person; the reason is in `why`).
 */
export type SecondPerson = 'approval' | 'anotherUser' | 'confirmer' | 'none';

export interface MoneyDoor {
  endpoints: readonly Endpoint[];
  moves: DoorMove;
  /** The acting user's Google code. */
  code: boolean;
  reason: DoorReason;
  secondPerson: SecondPerson;
  /** Counted in the day's sums of the user and the wallet. */
  dailySum: boolean;
  /** The approval request it records beyond the sums (`secondPerson: 'approval'`). */
  approval?: ApprovalAction;
  /** Why a door with no second person may do without one. */
  why?: string;
}

const { merchantOrder, merchantPayout, settlementPayment, settlementPayout, statement } = endpoints;

export const moneyDoors = {
  /** A pay-in paid on an operator's word, without a proved UTR. */
  'payin.force': {
    endpoints: [merchantOrder.forceSupplement],
    moves: 'pays',
    code: true,
    reason: 'reason',
    secondPerson: 'approval',
    dailySum: true,
    approval: 'payin.force',
  },
  /** Statement credits a person imported (file or paste) paying the orders they name or propose. */
  'statement.pay': {
    endpoints: [statement.match, statement.accept],
    moves: 'pays',
    code: true,
    reason: 'reason',
    secondPerson: 'approval',
    dailySum: true,
    approval: 'statement.pay',
  },
  /** A payout marked paid by hand (the channel's outcome was unclear). */
  'payout.markSuccess': {
    endpoints: [merchantPayout.markSuccess],
    moves: 'completes',
    code: true,
    reason: 'reason',
    secondPerson: 'approval',
    dailySum: true,
    approval: 'payout.markSuccess',
  },
  /** A withdrawal slip's payout line marked withdrawn (the bank paid it): a manual payout success. */
  'slip.withdrawPayout': {
    endpoints: [endpoints.withdrawalSlip.withdraw, statement.accept],
    moves: 'completes',
    code: true,
    reason: 'reference',
    secondPerson: 'anotherUser',
    dailySum: true,
  },
  /** A settlement confirmed with its audit amount (what leaves the merchant's wallet). */
  'settlement.confirm': {
    endpoints: [settlementPayment.confirm, settlementPayout.confirm],
    moves: 'completes',
    code: true,
    reason: 'application',
    secondPerson: 'approval',
    dailySum: true,
    approval: 'settlement.confirm',
  },
  /** A settlement completed with the bank's reference, by hand or by its slip line. */
  'settlement.complete': {
    endpoints: [settlementPayment.complete, settlementPayout.complete, endpoints.withdrawalSlip.withdraw],
    moves: 'completes',
    code: true,
    reason: 'reference',
    secondPerson: 'confirmer',
    dailySum: false,
    why: 'Confirming counted the amount; completing is always a second user.',
  },
  /** A merchant's recharge (money it says it sent the platform) credited to its payout wallet. */
  'recharge.confirm': {
    endpoints: [endpoints.merchantRechargeLog.confirm],
    moves: 'credits',
    code: true,
    reason: 'reason',
    secondPerson: 'approval',
    dailySum: true,
    approval: 'recharge.confirm',
  },
  /** A merchant's wallet credited or debited by hand. */
  'wallet.adjust': {
    endpoints: [endpoints.balanceAdjustment.create],
    moves: 'credits',
    code: true,
    reason: 'reason',
    secondPerson: 'approval',
    dailySum: true,
    approval: 'wallet.adjust',
  },
  /** An agent's commission paid out. */
  'agentCommission.pay': {
    endpoints: [endpoints.agentCommission.pay],
    moves: 'completes',
    code: true,
    reason: 'reference',
    secondPerson: 'approval',
    dailySum: true,
    approval: 'agentCommission.pay',
  },
  /**
   * A paid pay-in's money given back to the payer: from the console with the code, or the merchant's
   * signed gateway call (no code: the signature stands in for it), counted in the day's sums of the
   * merchant's collection wallet either way.
   */
  'refund.create': {
    endpoints: [endpoints.refund.create],
    moves: 'pays',
    code: true,
    reason: 'reason',
    secondPerson: 'approval',
    dailySum: true,
    approval: 'refund.create',
  },
  /** A payout marked failed by hand: its hold goes back to the merchant's wallet. */
  'payout.markFailed': {
    endpoints: [merchantPayout.markFailed],
    moves: 'releases',
    code: true,
    reason: 'reason',
    secondPerson: 'none',
    dailySum: false,
    why: 'The hold returns to the wallet it came from; nothing leaves the platform or is credited from outside.',
  },
  /**
   * A frozen account settled by the bank's letter: released shares go back to the merchants' wallets,
   * written-off shares are spent from their holds to channel clearing.
   */
  'accountFreeze.settle': {
    endpoints: [endpoints.accountFreeze.settle],
    moves: 'writesOff',
    code: true,
    reason: 'reason',
    secondPerson: 'confirmer',
    dailySum: false,
    why: 'Recording a freeze and settling it are always two people: the recorder never settles. The amounts are the bank’s letter, whatever their size, so no day’s sum applies.',
  },
  /**
   * A dispute decided: won releases the hold; lost spends it (a chargeback to channel clearing, a
   * complaint or wrong payment paid back to the payer by a refund from the hold).
   */
  'dispute.decide': {
    endpoints: [endpoints.dispute.decide],
    moves: 'writesOff',
    code: true,
    reason: 'reason',
    secondPerson: 'confirmer',
    dailySum: false,
    why: 'Opening a case and deciding it are always two people: the opener never decides. The amount is the case’s, held since it was opened, so no day’s sum applies.',
  },
  /**
   * A dispute withdrawn by the side that opened it (or by the platform): its hold goes back to the
   * merchant's wallets. Reachable by the merchant's own users too: they have Google codes as platform
   * users do (binding one is theirs to do, as for opening a case or a console refund), so the code is
   * asked of whoever withdraws, merchant or platform.
   */
  'dispute.withdraw': {
    endpoints: [endpoints.dispute.withdraw],
    moves: 'releases',
    code: true,
    reason: 'reason',
    secondPerson: 'none',
    dailySum: false,
    why: 'The hold returns to the wallets it came from; nothing leaves the platform or is credited from outside. The code is asked of merchant users as of platform users: both bind a Google key.',
  },
} as const satisfies Record<string, MoneyDoor>;

export type DoorId = keyof typeof moneyDoors;
export const doorIds = Object.keys(moneyDoors) as DoorId[];

/**
 * Settings that let money move by itself, with no person's word at each payment: a change that loosens
 * one (`loosens`, said in docs/SECURITY.md's table) is not made by the user who asks but recorded as the
 * approval request `approval`, which a second platform user decides; tightening one is one person's to do.
 */
export interface SettingDoor {
  endpoints: readonly Endpoint[];
  approval: ApprovalAction;
}

export const settingDoors = {
  /** A parameter that guards money: raising `maker_checker_threshold`, switching Google codes off. */
  'parameter.update': { endpoints: [endpoints.parameter.update], approval: 'parameter.update' },
  /** A receiving account's bank feed, whose lines pay by themselves: switched on, or changed while on. */
  'statementFeed.save': { endpoints: [endpoints.statementFeed.save], approval: 'statementFeed.save' },
} as const satisfies Record<string, SettingDoor>;

export type SettingDoorId = keyof typeof settingDoors;

/** The door whose approval request is `action`. */
export function doorOfApproval(action: ApprovalAction): DoorId | undefined {
  return doorIds.find((id) => (moneyDoors[id] as MoneyDoor).approval === action);
}
