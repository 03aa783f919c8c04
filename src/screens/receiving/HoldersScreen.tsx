import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatTime } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { percent } from '../merchant/terms.ts';
import { ListPage, statusColumn } from './ListPage.tsx';

type Holder = Contexts['accountHolder'];

const columns: Column<Holder>[] = [
  {
    id: 'name',
    header: 'screens.receiving.holderName',
    value: (r) => r.name,
    width: 'minmax(140px, 1fr)',
    sortable: true,
  },
  { id: 'phone', header: 'screens.receiving.phone', value: (r) => r.phone, width: '150px' },
  { id: 'idNumber', header: 'screens.receiving.idNumber', value: (r) => r.idNumber, width: '150px' },
  {
    id: 'commissionRate',
    header: 'screens.receiving.commissionRate',
    value: (r) => Number(r.commissionRate),
    cell: (r) => percent(r.commissionRate),
    width: '110px',
    sortable: true,
  },
  {
    id: 'cardCount',
    header: 'screens.receiving.cardCount',
    value: (r) => r.cardCount,
    width: '80px',
    sortable: true,
  },
  statusColumn(),
  {
    id: 'createdAt',
    header: 'screens.receiving.createdAt',
    value: (r) => r.createdAt,
    cell: (r) => formatTime(r.createdAt),
    width: '150px',
    hiddenByDefault: true,
  },
];

/** Account holders: the people who lend the platform their cards, with their commission. */
export default function HoldersScreen() {
  const tr = useT();
  const filters: Filter[] = [{ id: 'q', label: tr('screens.receiving.holderSearch'), kind: 'text' }];
  return (
    <ListPage
      id="account-holder"
      endpoint={endpoints.accountHolder.list}
      context="accountHolder"
      columns={columns}
      filters={filters}
      detailTitle={(r) => r.name}
    />
  );
}
