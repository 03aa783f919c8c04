import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { statusColumn } from './holderStatus.tsx';

type Holder = Contexts['accountHolder'];

const c = columnsOf<Holder>('screens.receiving');

const columns: Column<Holder>[] = [
  c.text('name', 'minmax(140px, 1fr)', { header: 'screens.receiving.holderName' }),
  c.text('phone', '150px', { sortable: false }),
  c.text('idNumber', '150px', { sortable: false }),
  c.rate('commissionRate', '110px'),
  c.text('cardCount', '80px'),
  statusColumn(),
  c.time('createdAt', '150px', { hiddenByDefault: true, sortable: false }),
];

/** Account holders: the people who lend the platform their cards, with their commission. */
export default function HoldersScreen() {
  const tr = useT();
  const filters: Filter[] = [{ id: 'q', label: tr('screens.receiving.holderSearch'), kind: 'text' }];
  return (
    <ListScreen
      id="account-holder"
      endpoint={endpoints.accountHolder.list}
      context="accountHolder"
      create
      paging="page"
      columns={columns}
      filters={filters}
      detailTitle={(r) => r.name}
    />
  );
}
