import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';
import { userColumns, userFilters } from './userColumns.tsx';

type Admin = Contexts['admin'];

const columns: Column<Admin>[] = [
  { id: 'id', header: 'screens.admin.id', value: (r) => r.id, width: '64px', sortable: true },
  {
    id: 'username',
    header: 'screens.admin.username',
    value: (r) => r.username,
    width: 'minmax(120px, 1fr)',
    sortable: true,
  },
  {
    id: 'nickname',
    header: 'screens.admin.nickname',
    value: (r) => r.nickname,
    width: 'minmax(110px, 1fr)',
    sortable: true,
  },
  {
    id: 'email',
    header: 'screens.admin.email',
    value: (r) => r.email,
    width: 'minmax(150px, 1.4fr)',
    hiddenByDefault: true,
  },
  ...userColumns<Admin>(),
];

export default function AdminScreen() {
  const t = useT();
  return (
    <Page title={t('commands.admin.list.title')} actions={<CommandButton id="admin.create" primary />}>
      <DataTable
        id="admin"
        label={t('commands.admin.list.title')}
        endpoint={endpoints.admin.list}
        context="admin"
        columns={columns}
        filters={userFilters(t)}
        paging="cursor"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => r.username}
      />
    </Page>
  );
}
