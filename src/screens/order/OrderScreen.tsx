import { useStore } from '@nanostores/react';
import { endpoints } from '../../../contract/index.ts';
import { t } from '../../lib/i18n.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import type { Column } from '../../ui/DataTable.tsx';
import { OrderDrawer } from './OrderDrawer.tsx';
import { OrderList } from './OrderList.tsx';
import { money, type Payin, PushBadge, StatusBadge, TimeCell } from './parts.tsx';

function payinColumns(platform: boolean): Column<Payin>[] {
  return [
    {
      id: 'createdAt',
      header: 'screens.order.createdAt',
      value: (r) => r.createdAt,
      cell: (r) => <TimeCell value={r.createdAt} />,
      width: '160px',
      sortable: true,
    },
    {
      id: 'orderNo',
      header: 'screens.order.orderNo',
      value: (r) => r.orderNo,
      cell: (r) => <span className="mono">{r.orderNo}</span>,
      width: '180px',
    },
    {
      id: 'merchantOrderNo',
      header: 'screens.order.merchantOrderNo',
      value: (r) => r.merchantOrderNo,
      width: 'minmax(110px, 1fr)',
    },
    {
      id: 'merchantCode',
      header: 'screens.order.merchant',
      value: (r) => r.merchantCode,
      width: '76px',
      sortable: true,
      hiddenByDefault: !platform,
    },
    {
      id: 'channelCode',
      header: 'screens.order.channel',
      value: (r) => r.channelCode ?? '',
      width: '100px',
      hiddenByDefault: true,
    },
    {
      id: 'amount',
      header: 'screens.order.amount',
      value: (r) => Number(r.amount),
      cell: (r) => <span className="num">{money(r.amount)}</span>,
      width: '96px',
      sortable: true,
    },
    {
      id: 'paidAmount',
      header: 'screens.order.paidAmount',
      value: (r) => (r.paidAmount === null ? null : Number(r.paidAmount)),
      cell: (r) => <span className="num">{money(r.paidAmount)}</span>,
      width: '110px',
      hiddenByDefault: true,
    },
    {
      id: 'fee',
      header: 'screens.order.fee',
      value: (r) => Number(r.fee),
      cell: (r) => <span className="num">{money(r.fee)}</span>,
      width: '90px',
      hiddenByDefault: true,
    },
    {
      id: 'status',
      header: 'screens.order.status',
      value: (r) => r.status,
      cell: (r) => <StatusBadge kind="payin" status={r.status} />,
      width: '100px',
      sortable: true,
    },
    {
      id: 'pushStatus',
      header: 'screens.order.pushStatus',
      value: (r) => r.pushStatus,
      cell: (r) => <PushBadge kind="payin" status={r.status} pushStatus={r.pushStatus} />,
      width: '104px',
      sortable: true,
    },
    // In the drawer and searchable; as a column it would not fit beside the rest at 1280 px.
    {
      id: 'utr',
      header: 'screens.order.utr',
      value: (r) => r.utr ?? '',
      width: '120px',
      hiddenByDefault: true,
    },
    {
      id: 'channelOrderId',
      header: 'screens.order.channelOrderId',
      value: (r) => r.channelOrderId ?? '',
      width: '170px',
      hiddenByDefault: true,
    },
    {
      id: 'paidBy',
      header: 'screens.order.paidBy',
      value: (r) => (r.paidBy ? t(`screens.order.paidByKinds.${r.paidBy}`) : ''),
      width: '110px',
      hiddenByDefault: true,
    },
    {
      id: 'paidAt',
      header: 'screens.order.paidAt',
      value: (r) => r.paidAt ?? '',
      cell: (r) => <TimeCell value={r.paidAt} />,
      width: '150px',
      hiddenByDefault: true,
    },
    {
      id: 'callbackAt',
      header: 'screens.order.callbackAt',
      value: (r) => r.callbackAt ?? '',
      cell: (r) => <TimeCell value={r.callbackAt} />,
      width: '150px',
      hiddenByDefault: true,
    },
  ];
}

export default function OrderScreen() {
  const tr = useT();
  const grants = useStore($grants);
  const platform = grants?.kind === 'platform';
  return (
    <OrderList
      kind="payin"
      context="payin"
      title={tr('commands.merchantOrder.list.title')}
      list={endpoints.merchantOrder.list}
      totals={endpoints.merchantOrder.totals}
      exporter={endpoints.merchantOrder.export}
      exportName="collection-orders"
      columns={payinColumns(platform)}
      actions={<CommandButton id="merchantOrder.utrLookup" />}
      drawer={(orderNo, close, shown) => <OrderDrawer orderNo={orderNo} onClose={close} onShown={shown} />}
    />
  );
}
