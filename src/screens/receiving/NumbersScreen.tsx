import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { statusColumn } from './holderStatus.tsx';

type HolderNumber = Contexts['holderNumber'];

const c = columnsOf<HolderNumber>('screens.receiving');

const columns: Column<HolderNumber>[] = [
  c.text('value', 'minmax(160px, 1fr)', { header: 'screens.receiving.number', sortable: false }),
  c.text('kind', '100px', {
    header: 'screens.receiving.numberKind',
    cell: (r) => t(`screens.receiving.numberKinds.${r.kind}`),
  }),
  c.of('holder', (r) => r.holderName, { width: '140px' }),
  c.of('cards', (r) => r.accountIds.join(','), {
    header: 'screens.receiving.linkedCards',
    cell: (r) => (r.accountIds.length ? r.accountIds.map((id) => `#${id}`).join(', ') : '—'),
    width: '140px',
    sortable: false,
  }),
  statusColumn(),
];

/** Number management: the phone numbers and UPI handles registered to account holders, and their cards. */
export default function NumbersScreen() {
  const tr = useT();
  const filters: Filter[] = [{ id: 'holderId', label: tr('screens.receiving.holderId'), kind: 'text' }];
  return (
    <ListScreen
      id="holder-number"
      endpoint={endpoints.holderNumber.list}
      context="holderNumber"
      create
      paging="page"
      columns={columns}
      filters={filters}
      detailTitle={(r) => `${r.value} · ${r.holderName}`}
    />
  );
}
