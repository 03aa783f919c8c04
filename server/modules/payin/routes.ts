/**
 * The console's collection-order endpoints (`merchantOrder.*`) and the simulator's pay control. Merchant
 * users are confined to their merchant: the merchant id comes from the session, never from the request,
 * and another merchant's order answers 404 as if it did not exist.
 */
import { endpoints } from '../../../contract/index.ts';
import { type Context, handle } from '../../http/handle.ts';
import { withReader } from '../../http/reader.ts';
import { payinList } from '../orders/kinds.ts';
import { forceRoutes } from './force.ts';
import { imageRoutes } from './imageHandlers.ts';
import { orderRoutes } from './orderHandlers.ts';
import { supplementRoutes } from './supplement.ts';

/** A page of pay-ins, through the order lists' engine. */
const orderPage = ({ input, user, tx, deps, req }: Context<typeof endpoints.merchantOrder.list>) =>
  payinList.list(deps, tx, user, input, req.lang);

/** Totals may read a moment behind (the read replica, `withReader`); the page itself stays on the primary. */
const orderTotals = ({ input, user, deps, req }: Context<typeof endpoints.merchantOrder.totals>) =>
  withReader({ deps, req }, (db) => payinList.totals(deps, db, user, input, req.lang));

/** Each handler file mounts its own handlers, beside them; the lists are read here. */
export const payinRoutes = [
  handle(endpoints.merchantOrder.list, orderPage),
  handle(endpoints.merchantOrder.totals, orderTotals),
  ...orderRoutes,
  ...supplementRoutes,
  ...forceRoutes,
  ...imageRoutes,
];
