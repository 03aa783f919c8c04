import type { Contexts } from '../../../commands/index.ts';
import { payout } from '../../../contract/machines.ts';
import { OrderDetail, type OrderDrawerProps, orderHead } from '../order/OrderDetail.tsx';

/** Under way and not waiting for a person: its state changes by itself, so the drawer follows it. */
const moving = (status: Contexts['payout']['status']) =>
  payout.is('underWay', status) && !payout.is('needsPerson', status);

const fields = [
  ...orderHead,
  'fee',
  'accountName',
  'accountNumber',
  'ifsc',
  'utr',
  'source',
  'channelCode',
  'channelOrderId',
  'createdAt',
  'completedAt',
  'callbackAt',
  'failureReason',
  'notifyUrl',
];

/** A payout in full: every field, the payee, snapshots, callbacks, ledger lines and its actions. */
export function PayoutDrawer(props: OrderDrawerProps<'payout'>) {
  return <OrderDetail kind="payout" {...props} moving={moving} fields={() => fields} />;
}
