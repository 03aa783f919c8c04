import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { t } from '../../lib/i18n.ts';
import { roleDescription, roleName } from '../../lib/names.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';

type Role = Contexts['role'];

const c = columnsOf<Role>('screens.role');

const columns: Column<Role>[] = [
  c.text('id', '64px'),
  c.of('name', (r) => roleName(r.name), { width: 'minmax(140px, 1fr)' }),
  c.of('description', (r) => roleDescription(r.name, r.description), {
    width: 'minmax(180px, 2fr)',
    sortable: false,
  }),
  c.of('builtin', (r) => r.builtin, {
    header: 'screens.role.kind',
    cell: (r) => (
      <Badge tone={r.builtin ? 'info' : 'muted'}>
        {t(r.builtin ? 'screens.role.builtin' : 'screens.role.custom')}
      </Badge>
    ),
    width: '96px',
    sortable: false,
  }),
  c.of('perms', (r) => (r.perms.includes('*') ? Number.POSITIVE_INFINITY : r.perms.length), {
    header: 'screens.role.permissions',
    cell: (r) => (r.perms.includes('*') ? t('screens.role.all') : String(r.perms.length)),
    width: '100px',
  }),
  c.text('userCount', '80px', { header: 'screens.role.users' }),
  c.time('updatedAt', '150px'),
];

export default function RoleScreen() {
  const t = useT();
  const filters: Filter[] = [{ id: 'name', label: t('screens.role.name'), kind: 'text' }];
  return (
    <ListScreen
      id="role"
      endpoint={endpoints.role.list}
      context="role"
      create
      columns={columns}
      filters={filters}
      paging="page"
      detailTitle={(r) => roleName(r.name)}
    />
  );
}
