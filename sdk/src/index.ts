/** @paygate/merchant-sdk: a typed client of the Paygate gateway and callback verification. */
export {
  type Created,
  type OperationId,
  PaygateClient,
  type PaygateClientOptions,
  PaygateError,
  type RetryOptions,
  retryAfterSeconds,
} from './client.js';
export * from './types.js';
export {
  type Callback,
  type HeadersLike,
  type PayinCallback,
  type PayoutCallback,
  type SettlementCallback,
  verifyCallback,
  WebhookVerificationError,
} from './webhooks.js';

import type { BalanceData, PayinCreateBody, PayinGetData, PayoutCreateBody, PayoutGetData } from './types.js';

/** A pay-in order as the gateway answers it. */
export type PayinOrder = PayinGetData;
/** A payout order as the gateway answers it. */
export type PayoutOrder = PayoutGetData;
/** The merchant's balances. */
export type Balance = BalanceData;
/** What `createPayin` sends. */
export type NewPayin = PayinCreateBody;
/** What `createPayout` sends. */
export type NewPayout = PayoutCreateBody;
