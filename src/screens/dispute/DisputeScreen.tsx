import { useMemo } from 'react';
import { endpoints } from '../../../contract/index.ts';
import { dispute } from '../../../contract/machines.ts';
import { useT } from '../../lib/useT.ts';
import { type Column, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { useDrawerParam } from '../../ui/drawerParam.ts';
import { useMerchantList } from '../../ui/MerchantPicker.tsx';
import { columnsOf, hidden } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { money } from '../order/parts.tsx';
import { DisputeDrawer } from './DisputeDrawer.tsx';
import { Deadline, type Dispute, DisputeStatus, kindLabel } from './parts.tsx';
import './dispute.css';

const c = columnsOf<Dispute>('screens.dispute');
const unsorted = { sortable: false } as const;
const amountCell = (value: string) => <span className="num">{money(value)}</span>;

// What a case needs looked at comes first (its state, money and deadline), so that it shows at 800 px too;
// whose and which order follow.
function columnsFor(platform: boolean): Column<Dispute>[] {
  return [
    c.text('disputeNo', '190px', { cell: (r) => <span className="mono">{r.disputeNo}</span>, ...unsorted }),
    c.text('status', '100px', { cell: (r) => <DisputeStatus status={r.status} />, ...unsorted }),
    c.money('amount', '100px', { cell: (r) => amountCell(r.amount), ...unsorted }),
    c.money('held', '100px', { cell: (r) => amountCell(r.held), ...unsorted }),
    c.money('unheld', '100px', { cell: (r) => amountCell(r.unheld), ...hidden }),
    c.text('deadline', '225px', { cell: (r) => <Deadline row={r} />, ...unsorted }),
    c.of('kind', (r) => kindLabel(r.kind), { width: '110px', ...unsorted }),
    ...(platform ? [c.text('merchantCode', '100px', unsorted)] : []),
    c.text('orderNo', '190px', { cell: (r) => <span className="mono">{r.orderNo}</span>, ...unsorted }),
    c.text('owner', 'minmax(90px, 1fr)', { cell: (r) => r.owner ?? '—', ...unsorted }),
    c.time('createdAt', '150px', hidden),
  ];
}

/**
 * Disputes of paid pay-ins: open cases first (overdue ones, then by deadline), then the decided ones,
 * newest first. The platform sees every merchant's (or the one picked), a merchant user its own. A case's
 * drawer (`?dispute=<id>`) shows what is held, the evidence, and its actions.
 */
export default function DisputeScreen() {
  const t = useT();
  const { platform, toInput, picker } = useMerchantList();
  const drawer = useDrawerParam<Dispute>('dispute', (r) => String(r.id));
  const open = Number(drawer.value) || null;
  const columns = useMemo(() => columnsFor(platform), [platform]);
  const filters: Filter[] = [statusFilter(t, dispute, { label: t('screens.dispute.status') })];
  return (
    <ListScreen
      id="disputes"
      endpoint={endpoints.dispute.list}
      context="dispute"
      hint={platform ? 'screens.dispute.hint' : 'screens.dispute.hintMerchant'}
      columns={columns}
      filters={filters}
      toInput={toInput}
      paging="page"
      detailTitle={(r) => r.disputeNo}
      onOpen={drawer.open}
      openRecord={drawer.record}
      toolbarStart={picker}
    >
      {open !== null && <DisputeDrawer id={open} onClose={drawer.close} onShown={drawer.setShown} />}
    </ListScreen>
  );
}
