/**
 * Payout orders: creation with idempotency and an immediate freeze of amount plus fee (`create.ts`), and the
 * actions of the `payout` state machine (declared in contract/machines.ts: its states, and where each action
 * may start and leads; `transitions.ts`). Every transition is a compare-and-set on the states its action starts
 * from (and on `hold_open` where a hold is opened or resolved), so each hold is resolved exactly once however
 * many notifications race. A payout is handed to a channel outside any transaction of ours (`submission.ts`).
 *
 * Ledger entries (refType `payout`, refId = the order id):
 * - `payout_freeze_<n>`:  payout_available −(amount+fee), frozen +(amount+fee)   (hold n opens)
 * - `payout_success`:     frozen −(amount+fee), payout_clearing +amount, fee_income +fee
 * - `payout_release_<n>`: frozen −(amount+fee), payout_available +(amount+fee)   (hold n released)
 */

export {
  type Created,
  checkAmountLimits,
  createPayout,
  holdEntry,
  newPayoutOrderNo,
  type PayoutRequest,
  payoutRequestHash,
} from './create.ts';
export {
  claimed,
  maxSubmitAttempts,
  payoutIdempotencyKey,
  recoverSubmission,
  submitBackoffSeconds,
  submitLeaseMs,
  submitPayout,
} from './submission.ts';
export {
  type Completion,
  completePayout,
  failCreation,
  payoutCandidates,
  retryPayout,
} from './transitions.ts';
export {
  type GatewayPayout,
  gatewayViewOf,
  merchantFailureReason,
  merchantStatusOf,
  type PayoutOrder,
  type PayoutRow,
  payoutRefType,
  payoutRowById,
  payoutRowsOf,
} from './views.ts';
