import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatTime, relativeTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { roleName } from '../../lib/names.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';

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
  {
    id: 'roles',
    header: 'screens.admin.roles',
    value: (r) => r.roles.map((x) => roleName(x.name)).join(', '),
    width: 'minmax(120px, 1.2fr)',
  },
  {
    id: 'status',
    header: 'screens.admin.status',
    value: (r) => r.status,
    cell: (r) => (
      <Badge tone={r.status === 'active' ? 'ok' : 'muted'}>{t(`screens.admin.statuses.${r.status}`)}</Badge>
    ),
    width: '90px',
    sortable: true,
  },
  {
    id: 'googleBound',
    header: 'screens.admin.google',
    value: (r) => r.googleBound,
    cell: (r) => (
      <Badge tone={r.googleBound ? 'info' : 'warn'}>
        {t(r.googleBound ? 'screens.admin.bound' : 'screens.admin.unbound')}
      </Badge>
    ),
    width: '96px',
  },
  {
    id: 'lastLoginAt',
    header: 'screens.admin.lastLogin',
    value: (r) => r.lastLoginAt ?? '',
    cell: (r) =>
      r.lastLoginAt ? <time title={formatTime(r.lastLoginAt)}>{relativeTime(r.lastLoginAt, t)}</time> : null,
    width: 'minmax(110px, 0.8fr)',
    sortable: true,
  },
  {
    id: 'createdAt',
    header: 'screens.admin.createdAt',
    value: (r) => r.createdAt,
    cell: (r) => formatTime(r.createdAt),
    width: '150px',
    sortable: true,
    hiddenByDefault: true,
  },
];

export default function AdminScreen() {
  const t = useT();
  const filters: Filter[] = [
    { id: 'username', label: t('screens.admin.username'), kind: 'text' },
    {
      id: 'status',
      label: t('screens.admin.status'),
      kind: 'select',
      options: [
        { value: 'active', label: t('screens.admin.statuses.active') },
        { value: 'disabled', label: t('screens.admin.statuses.disabled') },
      ],
    },
  ];
  return (
    <Page title={t('commands.admin.list.title')} actions={<CommandButton id="admin.create" primary />}>
      <DataTable
        id="admin"
        label={t('commands.admin.list.title')}
        endpoint={endpoints.admin.list}
        context="admin"
        columns={columns}
        filters={filters}
        paging="cursor"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => r.username}
      />
    </Page>
  );
}
