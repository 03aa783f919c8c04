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
  },
  sets: {
    /** Not yet decided: counted live on the dashboard. */
    underWay: ['creating', 'pending'],
    /** Decided: counted in its day's order stats. */
    ended: ['paid', 'failed', 'unpaid', 'creation_failed'],
    succeeded: ['paid'],
    /** Entering one of these sends the merchant a callback. */
    announced: ['paid', 'failed', 'unpaid'],
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

/** Every machine, for the tests that sweep them and check their labels. */
export const machines = [payin, payout, callback, recharge] as const;

export type PayinStatus = StateOf<typeof payin>;
export type PayinAction = ActionOf<typeof payin>;
export type PayoutStatus = StateOf<typeof payout>;
export type PayoutAction = ActionOf<typeof payout>;
export type CallbackStatus = StateOf<typeof callback>;
export type RechargeStatus = StateOf<typeof recharge>;
