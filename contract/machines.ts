/**
 * The product's state machines, each declared once (the form is in machine.ts; PRODUCT.md section 6
 * tells the story). Settlements, withdrawal slips and statement lines join here in the same form.
 */
import { type ActionOf, machine, type StateOf } from './machine.ts';

/**
 * A collection (pay-in) order. `creating` lasts while the channel is asked for a payment link; `failed`
 * and `unpaid` are outcomes a payment proved later (a UTR) may still overturn, so only `paid` and
 * `creation_failed` are final.
 */
export const payin = machine({
  name: 'payin',
  states: ['creating', 'pending', 'paid', 'failed', 'unpaid', 'creation_failed'],
  initial: 'creating',
  final: ['paid', 'creation_failed'],
  actions: {
    /** The channel gave a payment link. */
    created: { from: ['creating'], to: 'pending' },
    /** Every channel refused the order. */
    creationFailed: { from: ['creating'], to: 'creation_failed' },
    channelPaid: { from: ['pending'], to: 'paid' },
    channelFailed: { from: ['pending'], to: 'failed' },
    /** The payer's time ran out. */
    expire: { from: ['pending'], to: 'unpaid' },
    /** Paid on a UTR the channel confirms. */
    supplement: { from: ['pending', 'unpaid', 'failed'], to: 'paid' },
    /** Paid on an operator's word (Google code, reason). */
    force: { from: ['pending', 'unpaid', 'failed'], to: 'paid' },
    /** Ask the channel about a UTR the payer gives. */
    utrCheck: { from: ['pending', 'unpaid', 'failed'] },
    /** Attach the payer's proof image: to an order a payer could have paid. */
    uploadImage: { from: ['pending', 'paid', 'failed', 'unpaid'] },
    /** Change where the merchant's callback goes. */
    update: { from: ['pending', 'unpaid', 'failed'] },
    /** Send the merchant's callback again now. */
    push: { from: ['paid', 'failed', 'unpaid'] },
    /** Remove an order no money reached (the handler also checks that it was never paid). */
    delete: { from: ['creation_failed', 'unpaid', 'failed'] },
    /** Give some or all of what was paid back to the payer (a refund, docs/MONEY-BACK.md section 1). */
    refund: { from: ['paid'] },
  },
  sets: {
    /** Not yet decided: counted live on the dashboard. */
    underWay: ['creating', 'pending'],
    /** Decided: counted in its day's order stats. */
    ended: ['paid', 'failed', 'unpaid', 'creation_failed'],
    succeeded: ['paid'],
    /** Entering one of these sends the merchant a callback. */
    announced: ['paid', 'failed', 'unpaid'],
    /** The order holds its receiving account's daily amount and count (a bank channel's pay-in). */
    holdsAccountCapacity: ['pending', 'paid'],
  },
});

/**
 * A payout order. Its hold (amount plus fee, frozen at creation) is open exactly while the order is
 * `underWay`, and resolved once: spent on `success`, released on `failed` or `creation_failed`.
 * `submitting` and `needs_review` are internal steps the merchant sees as `processing`.
 */
export const payout = machine({
  name: 'payout',
  states: ['queued', 'submitting', 'processing', 'needs_review', 'success', 'failed', 'creation_failed'],
  initial: 'queued',
  final: ['success', 'creation_failed'],
  actions: {
    /** A worker claims the order to hand it to a channel (committed before the call). */
    claim: { from: ['queued'], to: 'submitting' },
    /** The channel booked it. */
    accepted: { from: ['submitting'], to: 'processing' },
    /** The channel definitively never received it: sent again later. */
    requeue: { from: ['submitting'], to: 'queued' },
    /** The hand-over's outcome is unclear and the channel cannot say: a person decides. */
    unclear: { from: ['submitting'], to: 'needs_review' },
    /** No channel took it: the hold is released. */
    creationFailed: { from: ['queued', 'submitting'], to: 'creation_failed' },
    channelSuccess: { from: ['processing'], to: 'success' },
    channelFailed: { from: ['processing'], to: 'failed' },
    /** A person settles it (Google code, reason); also when the hand-over was unclear. */
    markSuccess: { from: ['processing', 'needs_review'], to: 'success' },
    markFailed: { from: ['processing', 'needs_review'], to: 'failed' },
    /** Sent again after a failure, with a new hold. */
    retry: { from: ['failed'], to: 'queued' },
    /** Send the merchant's callback again now. */
    push: { from: ['success', 'failed', 'creation_failed'] },
  },
  sets: {
    /** The hold is open (`payout_orders.hold_open`); counted live on the dashboard. */
    underWay: ['queued', 'submitting', 'processing', 'needs_review'],
    /** Waiting for a person. */
    needsPerson: ['needs_review'],
    ended: ['success', 'failed', 'creation_failed'],
    succeeded: ['success'],
    announced: ['success', 'failed', 'creation_failed'],
    /** Shown to the merchant (gateway and merchant console) as `processing`. */
    shownAsProcessing: ['submitting', 'needs_review'],
  },
});

/**
 * A merchant callback (one event, delivered by attempts on a schedule). A manual push may deliver an
 * event the schedule gave up on, or deliver a delivered one again.
 */
export const callback = machine({
  name: 'callback',
  states: ['pending', 'delivered', 'gave_up'],
  initial: 'pending',
  final: [],
  actions: {
    /** An attempt the merchant's server answered with 2xx. */
    deliver: { from: ['pending', 'delivered', 'gave_up'], to: 'delivered' },
    /** An attempt that failed with attempts left in the schedule. */
    reschedule: { from: ['pending'] },
    /** The schedule ran out, or the receiver answered 410 Gone. */
    giveUp: { from: ['pending'], to: 'gave_up' },
  },
  sets: {},
});

/** A merchant's top-up of its payout wallet, decided by the platform. */
export const recharge = machine({
  name: 'recharge',
  states: ['pending', 'confirmed', 'rejected'],
  initial: 'pending',
  final: ['confirmed', 'rejected'],
  actions: {
    confirm: { from: ['pending'], to: 'confirmed' },
    reject: { from: ['pending'], to: 'rejected' },
  },
  sets: {},
});

/**
 * A settlement application: money out of one of a merchant's two wallets to its own bank account or USDT
 * address (OPERATIONS.md section 1). Its hold (amount plus fee, frozen when applied) is open exactly while
 * the application is `open`, and resolved once: spent on `complete`, released on `cancel` or `reject`;
 * a confirmation with a lower audit amount releases the difference at once.
 */
export const settlement = machine({
  name: 'settlement',
  states: ['to_be_confirmed', 'confirmed', 'settled', 'failed'],
  initial: 'to_be_confirmed',
  final: ['settled', 'failed'],
  actions: {
    /** The merchant changes its application (amount, account) before the platform looks at it. */
    update: { from: ['to_be_confirmed'] },
    /** The merchant withdraws its application. */
    cancel: { from: ['to_be_confirmed'], to: 'failed' },
    /** A platform user's first confirmation above the maker–checker threshold: a second user must approve. */
    askApproval: { from: ['to_be_confirmed'] },
    /** The platform approves the audit amount (and the USDT price). */
    confirm: { from: ['to_be_confirmed'], to: 'confirmed' },
    /** The money reached the merchant: the hold is spent (a user other than the confirmer). */
    complete: { from: ['confirmed'], to: 'settled' },
    /** The platform refuses it, with a reason. */
    reject: { from: ['to_be_confirmed', 'confirmed'], to: 'failed' },
    /** Put on a withdrawal slip (a bank settlement the platform sends by hand). */
    slip: { from: ['confirmed'] },
  },
  sets: {
    /** The hold is open; the platform's real-time queue shows these. */
    open: ['to_be_confirmed', 'confirmed'],
    succeeded: ['settled'],
  },
});

/** A two-person approval (maker–checker): a request one platform user makes and another decides. */
export const approval = machine({
  name: 'approval',
  states: ['pending', 'approved', 'rejected', 'cancelled'],
  initial: 'pending',
  final: ['approved', 'rejected', 'cancelled'],
  actions: {
    /** A second platform user agrees: the requested action runs. */
    approve: { from: ['pending'], to: 'approved' },
    /** A second platform user refuses: nothing runs. */
    reject: { from: ['pending'], to: 'rejected' },
    /** The object moved on without it (rejected, cancelled, settled by its channel). */
    cancel: { from: ['pending'], to: 'cancelled' },
  },
  sets: {},
});

/**
 * A T+N settlement line: one merchant's pending collection net of one business day (and the due day the
 * merchant's cycle gave it), released once by the settlement run of a day on or after its due day.
 */
export const tnLine = machine({
  name: 'tnLine',
  states: ['pending', 'released'],
  initial: 'pending',
  final: ['released'],
  actions: {
    release: { from: ['pending'], to: 'released' },
  },
  sets: {},
});

/**
 * A rolling reserve line (docs/MONEY-BACK.md section 4): a merchant's reserve due on one day, `held` until
 * the settlement run of that day releases it into collection, once.
 */
export const reserveLine = machine({
  name: 'reserveLine',
  states: ['held', 'released'],
  initial: 'held',
  final: ['released'],
  actions: {
    release: { from: ['held'], to: 'released' },
  },
  sets: {},
});

/** A withdrawal slip: a bank bulk-transfer file an operator uploads to the bank's portal. */
export const slip = machine({
  name: 'slip',
  states: ['to_be_withdrawn', 'withdrawn', 'defunct'],
  initial: 'to_be_withdrawn',
  final: ['withdrawn', 'defunct'],
  actions: {
    /** Every line is marked done (or dropped, at least one done). */
    withdraw: { from: ['to_be_withdrawn'], to: 'withdrawn' },
    /** Voided before any line was done: its lines are free to go on another slip. */
    void: { from: ['to_be_withdrawn'], to: 'defunct' },
  },
  sets: {},
});

/** A line of a withdrawal slip: one settlement or payout sent by the bank. */
export const slipLine = machine({
  name: 'slipLine',
  states: ['to_be_withdrawn', 'withdrawn', 'defunct'],
  initial: 'to_be_withdrawn',
  final: ['withdrawn', 'defunct'],
  actions: {
    /** The bank sent it: marked with the bank's reference, which completes its settlement or payout. */
    withdraw: { from: ['to_be_withdrawn'], to: 'withdrawn' },
    /** Dropped (the bank refused it, or the slip was voided): its settlement or payout may go on another slip. */
    drop: { from: ['to_be_withdrawn'], to: 'defunct' },
  },
  sets: {
    /** On a live slip: a settlement or payout is on at most one line in these states. */
    live: ['to_be_withdrawn', 'withdrawn'],
  },
});

/**
 * An imported bank statement line (OPERATIONS.md section 2). A line is saved `new`, then matching (on
 * import, or on demand) moves it: `matched` (it paid a pay-in as a supplement whose source is the line,
 * or closed a withdrawal-slip line), `proposed` (exactly one open pay-in of its amount on its account:
 * shown for one click, never paid by itself) or `exception` (its kind says why: `amount_mismatch`,
 * `ambiguous`, `unmatched`). A person resolves the open ones: match to an order, or dismiss with a reason.
 */
export const statementLine = machine({
  name: 'statementLine',
  states: ['new', 'ready', 'proposed', 'exception', 'matched', 'dismissed'],
  initial: 'new',
  final: ['matched'],
  actions: {
    /**
     * The bank's word for something a person must still post: a credit of a person's statement (an
     * upload or a paste) carrying an open pay-in's UTR and amount, or a debit naming a waiting slip line
     * of the slip paid from its account. Posting it is a money decision (docs/SECURITY.md).
     */
    ready: { from: ['new', 'proposed', 'exception'], to: 'ready' },
    /** Paid a pay-in or closed a slip line: by matching, or by a person posting or choosing the order. */
    match: { from: ['new', 'ready', 'proposed', 'exception'], to: 'matched' },
    /** One open pay-in of its amount on its account: waits for one click. */
    propose: { from: ['new', 'ready', 'exception'], to: 'proposed' },
    /** Nothing it can pay by itself: an amount mismatch, several candidates, or none. */
    except: { from: ['new', 'ready', 'proposed', 'exception'], to: 'exception' },
    /** Set aside with a reason (a refund, the bank's charges, a transfer of our own). */
    dismiss: { from: ['ready', 'proposed', 'exception'], to: 'dismissed' },
    /**
     * A dismissal taken back (its undo, or a person's second thought): matched again at once, but a
     * payment it would make waits `ready` for a person (docs/STATEMENTS.md).
     */
    reopen: { from: ['dismissed'], to: 'new' },
  },
  sets: {
    /** Waiting for a person: the exception queue. */
    open: ['ready', 'proposed', 'exception'],
    /** Matching may still move it (by itself or when asked again): saved, or waiting for a person. */
    undecided: ['new', 'ready', 'proposed', 'exception'],
    /** Names one candidate (a pay-in, or a slip line for a debit) a person posts in one click. */
    postable: ['ready', 'proposed'],
  },
});

/**
 * A Telegram alert to one group (OPERATIONS.md section 4): sent through the Bot API, retried on a
 * schedule while the API fails, given up on when the schedule runs out or Telegram refuses it for good.
 */
export const telegramDelivery = machine({
  name: 'telegramDelivery',
  states: ['pending', 'sent', 'gave_up'],
  initial: 'pending',
  final: ['sent', 'gave_up'],
  actions: {
    /** `sendMessage` answered ok. */
    send: { from: ['pending'], to: 'sent' },
    /** An attempt failed with attempts left. */
    reschedule: { from: ['pending'] },
    /** The schedule ran out, or the API refused the message for good (a 4xx other than 429). */
    giveUp: { from: ['pending'], to: 'gave_up' },
  },
  sets: {},
});

/**
 * A refund of a paid pay-in (docs/MONEY-BACK.md section 1). Its amount counts in the order's
 * `refunded_amount` while `open` or `success`, so refunds never pass what was paid. Above the day's sums
 * it waits `requested` for a second platform user; once decided its money moves by a payout order of its
 * own (held from the merchant's collection balance), whose outcome it follows: a person's decision on an
 * unclear hand-over is taken on that payout, as on any other.
 */
export const refund = machine({
  name: 'refund',
  states: ['requested', 'processing', 'success', 'failed', 'rejected', 'cancelled'],
  initial: 'requested',
  final: ['success', 'failed', 'rejected', 'cancelled'],
  actions: {
    /** A second platform user approved the request: the hold is taken and the payout made. */
    approve: { from: ['requested'], to: 'processing' },
    /** A second platform user refused it. */
    reject: { from: ['requested'], to: 'rejected' },
    /** Withdrawn by whoever may ask for it, before a second person decided. */
    cancel: { from: ['requested'], to: 'cancelled' },
    /** Its payout was paid out. */
    paid: { from: ['processing'], to: 'success' },
    /** Its payout failed (or no channel took it): the hold is back, the amount refundable again. */
    fail: { from: ['processing'], to: 'failed' },
  },
  sets: {
    /** Counted in the order's refunded amount: under way, or paid. */
    counted: ['requested', 'processing', 'success'],
    /** Not decided yet: listed first. */
    open: ['requested', 'processing'],
    succeeded: ['success'],
  },
});

/**
 * A freeze of one of our receiving accounts by its bank or a cyber-crime cell (docs/MONEY-BACK.md section
 * 3). Recorded `frozen`: the account leaves routing and each attributed merchant's share is held. Settled
 * once, by what the bank released and wrote off: the holds are released back or spent, in proportion.
 */
export const accountFreeze = machine({
  name: 'accountFreeze',
  states: ['frozen', 'settled'],
  initial: 'frozen',
  final: ['settled'],
  actions: {
    /** The bank's outcome recorded (released + written off = the frozen amount): every hold resolved. */
    settle: { from: ['frozen'], to: 'settled' },
  },
  sets: {
    /** The account's money is still held: the account may not be made active or paused. */
    open: ['frozen'],
  },
});

/**
 * A dispute of a paid pay-in (docs/MONEY-BACK.md section 2): opened `open` with its amount held from the
 * merchant; decided once by a platform user who did not open it, or withdrawn by the side that opened it.
 * Evidence and the owner are not states.
 */
export const dispute = machine({
  name: 'dispute',
  states: ['open', 'won', 'lost', 'withdrawn'],
  initial: 'open',
  final: ['won', 'lost', 'withdrawn'],
  actions: {
    /** Decided for the merchant: the hold goes back to the wallets it came from. */
    win: { from: ['open'], to: 'won' },
    /** Decided against the merchant: the hold is spent (channel clearing, or a refund to the payer). */
    lose: { from: ['open'], to: 'lost' },
    /** The opener gave it up: the hold goes back. */
    withdraw: { from: ['open'], to: 'withdrawn' },
    /** Evidence added or the owner changed: only while open. */
    work: { from: ['open'] },
  },
  sets: {
    open: ['open'],
  },
});

/** Every machine, for the tests that sweep them and check their labels. */
export const machines = [
  payin,
  payout,
  callback,
  recharge,
  settlement,
  approval,
  tnLine,
  reserveLine,
  slip,
  slipLine,
  statementLine,
  telegramDelivery,
  refund,
  accountFreeze,
  dispute,
] as const;

export type PayinStatus = StateOf<typeof payin>;
export type PayinAction = ActionOf<typeof payin>;
export type PayoutStatus = StateOf<typeof payout>;
export type PayoutAction = ActionOf<typeof payout>;
export type CallbackStatus = StateOf<typeof callback>;
export type RechargeStatus = StateOf<typeof recharge>;
export type SettlementStatus = StateOf<typeof settlement>;
export type SettlementAction = ActionOf<typeof settlement>;
export type ApprovalStatus = StateOf<typeof approval>;
export type TelegramDeliveryStatus = StateOf<typeof telegramDelivery>;
export type TnLineStatus = StateOf<typeof tnLine>;
export type ReserveLineStatus = StateOf<typeof reserveLine>;
export type SlipStatus = StateOf<typeof slip>;
export type SlipLineStatus = StateOf<typeof slipLine>;
export type StatementLineStatus = StateOf<typeof statementLine>;
export type RefundStatus = StateOf<typeof refund>;
export type AccountFreezeStatus = StateOf<typeof accountFreeze>;
export type DisputeStatus = StateOf<typeof dispute>;
