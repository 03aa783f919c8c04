import { endpoints } from '../../../contract/index.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { merchantWidthTight } from '../columns.tsx';
import { orderColumns } from './fields.tsx';
import { OrderDrawer } from './OrderDrawer.tsx';
import { OrderList } from './OrderList.tsx';
import type { Payin } from './parts.tsx';

const payinColumns = (platform: boolean) =>
  orderColumns<Payin>('payin', [
    ['createdAt', '160px', { sortable: true }],
    ['orderNo', '180px'],
    ['merchantOrderNo', 'minmax(110px, 1fr)'],
    ['merchantCode', merchantWidthTight, { sortable: true, hidden: !platform }],
    ['channelCode', '100px', { hidden: true }],
    ['amount', '96px', { sortable: true }],
    ['paidAmount', '110px', { hidden: true }],
    ['fee', '90px', { hidden: true }],
    ['status', '100px', { sortable: true }],
    ['pushStatus', '104px', { sortable: true }],
    // In the drawer and searchable; as a column it would not fit beside the rest at 1280 px.
    ['utr', '120px', { hidden: true }],
    ['channelOrderId', '170px', { hidden: true }],
    ['paidBy', '110px', { hidden: true }],
    ['paidAt', '150px', { hidden: true }],
    ['callbackAt', '150px', { hidden: true }],
  ]);

export default function OrderScreen() {
  return (
    <OrderList
      kind="payin"
      list={endpoints.merchantOrder.list}
      totals={endpoints.merchantOrder.totals}
      exporter={endpoints.merchantOrder.export}
      exportName="collection-orders"
      columns={payinColumns}
      actions={<CommandButton id="merchantOrder.utrLookup" />}
      drawer={OrderDrawer}
    />
  );
}
