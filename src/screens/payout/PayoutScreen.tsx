import { useStore } from '@nanostores/react';
import { endpoints } from '../../../contract/index.ts';
import { t } from '../../lib/i18n.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import type { Column } from '../../ui/DataTable.tsx';
import { OrderList } from '../order/OrderList.tsx';
import { money, type Payout, PushBadge, StatusBadge, TimeCell } from '../order/parts.tsx';
import { PayoutDrawer } from './PayoutDrawer.tsx';

function payoutColumns(platform: boolean): Column<Payout>[] {
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
      width: 'minmax(130px, 1fr)',
      hiddenByDefault: true,
    },
    {
      id: 'merchantCode',
      header: 'screens.order.merchant',
      value: (r) => r.merchantCode,
      width: '76px',
      sortable: true,
      hiddenByDefault: !platform,
    },
    // Name and account in one column, so a payout list fits 1280 px beside the menu.
    {
      id: 'payee',
      header: 'screens.payout.payee',
      value: (r) => `${r.accountName} ${r.accountNumber}`,
      cell: (r) => (
        <span title={`${r.accountName} · ${r.accountNumber} · ${r.ifsc}`}>
          {r.accountName} <span className="mono muted">{r.accountNumber}</span>
        </span>
      ),
      width: 'minmax(122px, 1.4fr)',
    },
    {
      id: 'ifsc',
      header: 'screens.payout.ifsc',
      value: (r) => r.ifsc,
      width: '110px',
      hiddenByDefault: true,
    },
    {
      id: 'amount',
      header: 'screens.payout.amount',
      value: (r) => Number(r.amount),
      cell: (r) => <span className="num">{money(r.amount)}</span>,
      width: '96px',
      sortable: true,
    },
    {
      id: 'fee',
      header: 'screens.order.fee',
      value: (r) => Number(r.fee),
      cell: (r) => <span className="num">{money(r.fee)}</span>,
      width: '80px',
      hiddenByDefault: true,
    },
    {
      id: 'status',
      header: 'screens.order.status',
      value: (r) => r.status,
      cell: (r) => <StatusBadge kind="payout" status={r.status} />,
      width: '104px',
      sortable: true,
    },
    {
      id: 'pushStatus',
      header: 'screens.order.pushStatus',
      value: (r) => r.pushStatus,
      cell: (r) => <PushBadge kind="payout" status={r.status} pushStatus={r.pushStatus} />,
      width: '104px',
      sortable: true,
    },
    {
      id: 'source',
      header: 'screens.payout.source',
      value: (r) => t(`screens.payout.sources.${r.source}`),
      width: '84px',
      hiddenByDefault: true,
    },
    {
      id: 'utr',
      header: 'screens.order.utr',
      value: (r) => r.utr ?? '',
      width: '124px',
      hiddenByDefault: true,
    },
    {
      id: 'failureReason',
      header: 'screens.order.failureReason',
      value: (r) => r.failureReason ?? '',
      width: 'minmax(120px, 1fr)',
      hiddenByDefault: true,
    },
    {
      id: 'completedAt',
      header: 'screens.payout.completedAt',
      value: (r) => r.completedAt ?? '',
      cell: (r) => <TimeCell value={r.completedAt} />,
      width: '150px',
      hiddenByDefault: true,
    },
  ];
}

export default function PayoutScreen() {
  const tr = useT();
  const grants = useStore($grants);
  const platform = grants?.kind === 'platform';
  return (
    <OrderList
      kind="payout"
      context="payout"
      title={tr('commands.merchantPayout.list.title')}
      list={endpoints.merchantPayout.list}
      totals={endpoints.merchantPayout.totals}
      exporter={endpoints.merchantPayout.export}
      exportName="payout-orders"
      columns={payoutColumns(platform)}
      actions={
        <>
          <CommandButton id="merchantPayout.create" primary />
          <CommandButton id="merchantPayout.bulkCreate" />
        </>
      }
      drawer={(orderNo, close, shown) => <PayoutDrawer orderNo={orderNo} onClose={close} onShown={shown} />}
    />
  );
}
