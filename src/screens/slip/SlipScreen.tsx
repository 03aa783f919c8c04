import { endpoints } from '../../../contract/index.ts';
import { slip } from '../../../contract/machines.ts';
import { useT } from '../../lib/useT.ts';
import { type Column, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { useDrawerParam } from '../../ui/drawerParam.ts';
import { columnsOf, hidden } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { money, TimeCell } from '../order/parts.tsx';
import { formatName, type Slip, SlipStatus } from './parts.tsx';
import { SlipDrawer } from './SlipDrawer.tsx';
import './slip.css';

const c = columnsOf<Slip>('screens.slip');

const columns: Column<Slip>[] = [
  c.time('createdAt', '150px', { cell: (r) => <TimeCell value={r.createdAt} /> }),
  c.text('slipNo', '140px', { cell: (r) => <span className="mono">{r.slipNo}</span>, sortable: false }),
  c.text('format', 'minmax(170px, 1.2fr)', { cell: (r) => formatName(r.format), sortable: false }),
  c.of('lines', (r) => r.lineCount, {
    // Done of all: withdrawn and dropped against the slip's lines.
    cell: (r) => (
      <span className="num">
        {r.lineCounts.withdrawn + r.lineCounts.defunct}/{r.lineCount}
      </span>
    ),
    width: '70px',
  }),
  c.money('total', 'minmax(120px, 1fr)', {
    cell: (r) => (
      <span className="num">
        {money(r.total)} <span className="muted">{r.currency}</span>
      </span>
    ),
  }),
  c.text('status', '136px', { cell: (r) => <SlipStatus status={r.status} /> }),
  c.text('createdBy', 'minmax(90px, 0.8fr)', { sortable: false }),
  c.time('decidedAt', '150px', { cell: (r) => <TimeCell value={r.decidedAt} />, ...hidden }),
  c.text('fileName', 'minmax(140px, 1fr)', hidden),
];

/**
 * Withdrawal slips, newest first: bank settlements and manual-bank payouts sent as a bank's bulk file.
 * A slip's drawer (`?slip=<id>`) lists its lines, each marked withdrawn with the bank's reference or
 * dropped; the slip's file downloads again as it was first handed out.
 */
export default function SlipScreen() {
  const t = useT();
  const drawer = useDrawerParam<Slip>('slip', (r) => String(r.id));
  const open = Number(drawer.value) || null;
  const filters: Filter[] = [statusFilter(t, slip, { label: t('screens.slip.status') })];
  return (
    <ListScreen
      id="withdrawalSlip"
      endpoint={endpoints.withdrawalSlip.list}
      context="slip"
      create
      columns={columns}
      filters={filters}
      paging="page"
      detailTitle={(r) => r.slipNo}
      onOpen={drawer.open}
      openRecord={drawer.record}
    >
      {open !== null && <SlipDrawer id={open} onClose={drawer.close} onShown={drawer.setShown} />}
    </ListScreen>
  );
}
