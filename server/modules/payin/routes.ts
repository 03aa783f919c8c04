/**
 * The console's collection-order endpoints (`merchantOrder.*`) and the simulator's pay control. Merchant
 * users are confined to their merchant: the merchant id comes from the session, never from the request,
 * and another merchant's order answers 404 as if it did not exist.
 */
import { endpoints } from '../../../contract/index.ts';
import { type Context, handle } from '../../http/handle.ts';
import { withReader } from '../../http/reader.ts';
import { payinList } from '../orders/kinds.ts';
import { forceSupplement } from './force.ts';
import { orderImage, uploadOrderImage } from './imageHandlers.ts';
import {
  createOrder,
  deleteOrder,
  orderInfo,
  pushCallback,
  simulatorPay,
  updateOrder,
} from './orderHandlers.ts';
import { checkUtr, supplementOrder } from './supplement.ts';

/** A page of pay-ins, through the order lists' engine. */
const orderPage = ({ input, user, tx, deps, req }: Context<typeof endpoints.merchantOrder.list>) =>
  payinList.list(deps, tx, user, input, req.lang);

/** Totals may read a moment behind (the read replica, `withReader`); the page itself stays on the primary. */
const orderTotals = ({ input, user, deps, req }: Context<typeof endpoints.merchantOrder.totals>) =>
  withReader({ deps, req }, (db) => payinList.totals(deps, db, user, input, req.lang));

export const payinRoutes = [
  handle(endpoints.merchantOrder.list, orderPage),
  handle(endpoints.merchantOrder.totals, orderTotals),
  handle(endpoints.merchantOrder.info, orderInfo),
  handle(endpoints.merchantOrder.create, createOrder),
  handle(endpoints.merchantOrder.update, updateOrder),
  handle(endpoints.merchantOrder.delete, deleteOrder),
  // A UTR check may ask a channel over the network: no transaction is held open meanwhile.
  handle(endpoints.merchantOrder.utrCheck, checkUtr, { outsideTransaction: true }),
  handle(endpoints.merchantOrder.supplement, supplementOrder),
  handle(endpoints.merchantOrder.forceSupplement, forceSupplement),
  handle(endpoints.merchantOrder.uploadImage, uploadOrderImage),
  handle(endpoints.merchantOrder.image, orderImage),
  // The push waits for the merchant's server (up to 15 s): no transaction is held open meanwhile.
  handle(endpoints.merchantOrder.push, pushCallback, { outsideTransaction: true }),
  handle(endpoints.simulator.pay, simulatorPay),
];
