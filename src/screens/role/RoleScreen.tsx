import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { roleDescription, roleName } from '../../lib/names.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';

type Role = Contexts['role'];

const columns: Column<Role>[] = [
  { id: 'id', header: 'screens.role.id', value: (r) => r.id, width: '64px', sortable: true },
  {
    id: 'name',
    header: 'screens.role.name',
    value: (r) => roleName(r.name),
    width: 'minmax(140px, 1fr)',
    sortable: true,
  },
  {
    id: 'description',
    header: 'screens.role.description',
    value: (r) => roleDescription(r.name, r.description),
    width: 'minmax(180px, 2fr)',
  },
  {
    id: 'builtin',
    header: 'screens.role.kind',
    value: (r) => r.builtin,
    cell: (r) => (
      <Badge tone={r.builtin ? 'info' : 'muted'}>
        {t(r.builtin ? 'screens.role.builtin' : 'screens.role.custom')}
      </Badge>
    ),
    width: '96px',
  },
  {
    id: 'perms',
    header: 'screens.role.permissions',
    value: (r) => (r.perms.includes('*') ? Number.POSITIVE_INFINITY : r.perms.length),
    cell: (r) => (r.perms.includes('*') ? t('screens.role.all') : String(r.perms.length)),
    width: '100px',
    sortable: true,
  },
  { id: 'userCount', header: 'screens.role.users', value: (r) => r.userCount, width: '80px', sortable: true },
  {
    id: 'updatedAt',
    header: 'screens.role.updatedAt',
    value: (r) => r.updatedAt,
    cell: (r) => formatTime(r.updatedAt),
    width: '150px',
    sortable: true,
  },
];

export default function RoleScreen() {
  const t = useT();
  const filters: Filter[] = [{ id: 'name', label: t('screens.role.name'), kind: 'text' }];
  return (
    <Page title={t('commands.role.list.title')} actions={<CommandButton id="role.create" primary />}>
      <DataTable
        id="role"
        label={t('commands.role.list.title')}
        endpoint={endpoints.role.list}
        context="role"
        columns={columns}
        filters={filters}
        paging="page"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => roleName(r.name)}
      />
    </Page>
  );
}
