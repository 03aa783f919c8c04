/** The two order kinds on the list engine (`orderList`): their tables, rows and what differs. */
import { sql } from 'drizzle-orm';
import { payoutRowFields } from '../../../contract/endpoints/orders.ts';
import { payout } from '../../../contract/machines.ts';
import { payinOrders, payoutOrders } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { payinOrderRow } from '../payin/views.ts';
import { orderList } from './list.ts';
import { orderRow } from './row.ts';

export const payinList = orderList({
  name: 'payin',
  table: payinOrders,
  row: payinOrderRow,
  notExported: ['id', 'merchantId', 'channelId', 'expiresAt'],
});

/** The payout row (`payoutRowFields`, declared once in the contract) as the server reads and writes it. */
export const payoutOrderRow = orderRow(payoutOrders, payoutRowFields);

export const payoutList = orderList({
  name: 'payout',
  table: payoutOrders,
  row: payoutOrderRow,
  // A hand-over under way or under review carries the operators' note, not a failure a merchant should
  // act on (`merchantFailureReason`, which the detail and the gateway use).
  merchantSees: {
    failureReason: sql`case when ${inStates(payoutOrders.status, payout.sets.shownAsProcessing)} then null else ${payoutOrders.failureReason} end`,
  },
  notExported: ['id', 'merchantId', 'channelId'],
});
