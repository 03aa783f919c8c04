import { endpoints } from '../../../contract/index.ts';
import { slip } from '../../../contract/machines.ts';
import { useT } from '../../lib/useT.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { useDrawerParam } from '../../ui/drawerParam.ts';
import { money, TimeCell } from '../order/parts.tsx';
import { Page } from '../Page.tsx';
import { formatName, type Slip, SlipStatus } from './parts.tsx';
import { SlipDrawer } from './SlipDrawer.tsx';
import './slip.css';

const columns: Column<Slip>[] = [
  {
    id: 'createdAt',
    header: 'screens.slip.createdAt',
    value: (r) => r.createdAt,
    cell: (r) => <TimeCell value={r.createdAt} />,
    width: '150px',
    sortable: true,
  },
  {
    id: 'slipNo',
    header: 'screens.slip.slipNo',
    value: (r) => r.slipNo,
    cell: (r) => <span className="mono">{r.slipNo}</span>,
    width: '140px',
  },
  {
    id: 'format',
    header: 'screens.slip.format',
    value: (r) => r.format,
    cell: (r) => formatName(r.format),
    width: 'minmax(170px, 1.2fr)',
  },
  {
    id: 'lines',
    header: 'screens.slip.lines',
    value: (r) => r.lineCount,
    // Done of all: withdrawn and dropped against the slip's lines.
    cell: (r) => (
      <span className="num">
        {r.lineCounts.withdrawn + r.lineCounts.defunct}/{r.lineCount}
      </span>
    ),
    width: '70px',
    sortable: true,
  },
  {
    id: 'total',
    header: 'screens.slip.total',
    value: (r) => Number(r.total),
    cell: (r) => (
      <span className="num">
        {money(r.total)} <span className="muted">{r.currency}</span>
      </span>
    ),
    width: 'minmax(120px, 1fr)',
    sortable: true,
  },
  {
    id: 'status',
    header: 'screens.slip.status',
    value: (r) => r.status,
    cell: (r) => <SlipStatus status={r.status} />,
    width: '136px',
    sortable: true,
  },
  {
    id: 'createdBy',
    header: 'screens.slip.createdBy',
    value: (r) => r.createdBy,
    width: 'minmax(90px, 0.8fr)',
  },
  {
    id: 'decidedAt',
    header: 'screens.slip.decidedAt',
    value: (r) => r.decidedAt ?? '',
    cell: (r) => <TimeCell value={r.decidedAt} />,
    width: '150px',
    hiddenByDefault: true,
  },
  {
    id: 'fileName',
    header: 'screens.slip.fileName',
    value: (r) => r.fileName,
    width: 'minmax(140px, 1fr)',
    hiddenByDefault: true,
  },
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
    <Page
      title={t('commands.withdrawalSlip.list.title')}
      actions={<CommandButton id="withdrawalSlip.create" primary />}
    >
      <DataTable
        id="withdrawalSlip"
        label={t('commands.withdrawalSlip.list.title')}
        endpoint={endpoints.withdrawalSlip.list}
        context="slip"
        columns={columns}
        filters={filters}
        paging="page"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => r.slipNo}
        onOpen={drawer.open}
        openRecord={drawer.record}
      />
      {open !== null && <SlipDrawer id={open} onClose={drawer.close} onShown={drawer.setShown} />}
    </Page>
  );
}
