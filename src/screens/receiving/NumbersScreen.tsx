import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { ListPage, statusColumn } from './ListPage.tsx';

type HolderNumber = Contexts['holderNumber'];

const columns: Column<HolderNumber>[] = [
  { id: 'value', header: 'screens.receiving.number', value: (r) => r.value, width: 'minmax(160px, 1fr)' },
  {
    id: 'kind',
    header: 'screens.receiving.numberKind',
    value: (r) => r.kind,
    cell: (r) => t(`screens.receiving.numberKinds.${r.kind}`),
    width: '100px',
    sortable: true,
  },
  {
    id: 'holder',
    header: 'screens.receiving.holder',
    value: (r) => r.holderName,
    width: '140px',
    sortable: true,
  },
  {
    id: 'cards',
    header: 'screens.receiving.linkedCards',
    value: (r) => r.accountIds.join(','),
    cell: (r) => (r.accountIds.length ? r.accountIds.map((id) => `#${id}`).join(', ') : '—'),
    width: '140px',
  },
  statusColumn(),
];

/** Number management: the phone numbers and UPI handles registered to account holders, and their cards. */
export default function NumbersScreen() {
  const tr = useT();
  const filters: Filter[] = [{ id: 'holderId', label: tr('screens.receiving.holderId'), kind: 'text' }];
  return (
    <ListPage
      id="holder-number"
      endpoint={endpoints.holderNumber.list}
      context="holderNumber"
      columns={columns}
      filters={filters}
      detailTitle={(r) => `${r.value} · ${r.holderName}`}
    />
  );
}
