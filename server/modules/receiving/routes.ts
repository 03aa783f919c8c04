/**
 * Receiving accounts, account holders, card bindings and holder numbers (`receivingAccount.*`,
 * `accountHolder.*`, `cardBinding.*`, `holderNumber.*`; platform users only). Writes refuse what the
 * stored rows do not allow with 422 (limits, a card without its holder, a binding to a channel that is not
 * a bank channel), a taken account number or binding with 409, and are audited.
 */
import { accountRoutes } from './accounts.ts';
import { bindingRoutes } from './bindings.ts';
import { holderNumberRoutes } from './holderNumbers.ts';
import { holderRoutes } from './holders.ts';

export const receivingRoutes = [...accountRoutes, ...holderRoutes, ...bindingRoutes, ...holderNumberRoutes];
