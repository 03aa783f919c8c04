import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import type { Column } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { userColumns, userFilters } from './userColumns.tsx';

type Admin = Contexts['admin'];

const c = columnsOf<Admin>('screens.admin');

const columns: Column<Admin>[] = [
  c.text('id', '64px'),
  c.text('username', 'minmax(120px, 1fr)'),
  c.text('nickname', 'minmax(110px, 1fr)'),
  c.text('email', 'minmax(150px, 1.4fr)', { hiddenByDefault: true, sortable: false }),
  ...userColumns<Admin>(),
];

export default function AdminScreen() {
  const t = useT();
  return (
    <ListScreen
      id="admin"
      endpoint={endpoints.admin.list}
      context="admin"
      create
      columns={columns}
      filters={userFilters(t)}
      paging="cursor"
      detailTitle={(r) => r.username}
    />
  );
}
