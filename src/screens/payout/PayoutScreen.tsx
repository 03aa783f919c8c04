import { endpoints } from '../../../contract/index.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { merchantWidthTight } from '../columns.tsx';
import { orderColumns } from '../order/fields.tsx';
import { OrderList } from '../order/OrderList.tsx';
import type { Payout } from '../order/parts.tsx';
import { PayoutDrawer } from './PayoutDrawer.tsx';

const payoutColumns = (platform: boolean) =>
  orderColumns<Payout>('payout', [
    ['createdAt', '160px', { sortable: true }],
    ['orderNo', '180px'],
    ['merchantOrderNo', 'minmax(130px, 1fr)', { hidden: true }],
    ['merchantCode', merchantWidthTight, { sortable: true, hidden: !platform }],
    ['payee', 'minmax(122px, 1.4fr)'],
    ['ifsc', '110px', { hidden: true }],
    ['amount', '96px', { sortable: true }],
    ['fee', '80px', { hidden: true }],
    ['status', '104px', { sortable: true }],
    ['pushStatus', '104px', { sortable: true }],
    ['source', '84px', { hidden: true }],
    ['utr', '124px', { hidden: true }],
    ['failureReason', 'minmax(120px, 1fr)', { hidden: true }],
    ['completedAt', '150px', { hidden: true }],
  ]);

export default function PayoutScreen() {
  return (
    <OrderList
      kind="payout"
      list={endpoints.merchantPayout.list}
      totals={endpoints.merchantPayout.totals}
      exporter={endpoints.merchantPayout.export}
      exportName="payout-orders"
      columns={payoutColumns}
      actions={
        <>
          <CommandButton id="merchantPayout.create" primary />
          <CommandButton id="merchantPayout.bulkCreate" />
        </>
      }
      drawer={PayoutDrawer}
    />
  );
}
