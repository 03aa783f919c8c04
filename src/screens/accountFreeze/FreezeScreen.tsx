import { endpoints } from '../../../contract/index.ts';
import { accountFreeze } from '../../../contract/machines.ts';
import { useT } from '../../lib/useT.ts';
import { type Column, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { useDrawerParam } from '../../ui/drawerParam.ts';
import { columnsOf, hidden } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { money, TimeCell } from '../order/parts.tsx';
import { FreezeDrawer } from './FreezeDrawer.tsx';
import { type Freeze, FreezeStatus } from './parts.tsx';

const c = columnsOf<Freeze>('screens.accountFreeze');

const columns: Column<Freeze>[] = [
  c.time('frozenAt', '150px', { cell: (r) => <TimeCell value={r.frozenAt} /> }),
  c.of('account', (r) => r.accountLabel, { width: 'minmax(160px, 1fr)', sortable: false }),
  c.text('reference', 'minmax(140px, 1fr)', { cell: (r) => <span className="mono">{r.reference}</span> }),
  c.money('amount', 'minmax(110px, 0.8fr)', {
    cell: (r) => (
      <span className="num">
        {money(r.amount)} <span className="muted">{r.currency}</span>
      </span>
    ),
  }),
  c.money('held', '110px', { cell: (r) => <span className="num">{money(r.held)}</span> }),
  c.money('unheld', '110px', { cell: (r) => <span className="num">{money(r.unheld)}</span> }),
  c.money('unattributed', '110px', {
    cell: (r) => <span className="num">{money(r.unattributed)}</span>,
    ...hidden,
  }),
  c.count('merchants', '90px'),
  c.text('status', '110px', { cell: (r) => <FreezeStatus status={r.status} /> }),
  c.text('recordedBy', 'minmax(90px, 0.8fr)', { sortable: false }),
  c.time('settledAt', '150px', { cell: (r) => <TimeCell value={r.settledAt} />, ...hidden }),
];

/**
 * Banks' freezes of our receiving accounts, newest first. A freeze's drawer (`?freeze=<id>`) shows whose
 * money it holds: one line per merchant with its share, what was held and what could not be.
 */
export default function FreezeScreen() {
  const t = useT();
  const drawer = useDrawerParam<Freeze>('freeze', (r) => String(r.id));
  const open = Number(drawer.value) || null;
  const filters: Filter[] = [
    statusFilter(t, accountFreeze, { label: t('screens.accountFreeze.status') }),
    { id: 'accountId', label: t('screens.accountFreeze.accountId'), kind: 'text' },
  ];
  return (
    <ListScreen
      id="accountFreeze"
      endpoint={endpoints.accountFreeze.list}
      context="accountFreeze"
      columns={columns}
      filters={filters}
      paging="page"
      detailTitle={(r) => `${r.accountLabel} · ${r.reference}`}
      onOpen={drawer.open}
      openRecord={drawer.record}
    >
      {open !== null && <FreezeDrawer id={open} onClose={drawer.close} onShown={drawer.setShown} />}
    </ListScreen>
  );
}
