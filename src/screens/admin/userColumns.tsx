/** What every list of sign-in users shares: its filters and columns. */
import { formatTime, relativeTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { roleName } from '../../lib/names.ts';
import { Badge } from '../../ui/Badge.tsx';
import type { Column, Filter } from '../../ui/DataTable.tsx';

interface UserRow {
  roles: readonly { name: string }[];
  status: 'active' | 'disabled';
  googleBound: boolean;
  lastLoginAt: string | null;
  createdAt: string;
}

export function userColumns<R extends UserRow>(): Column<R>[] {
  return [
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
        r.lastLoginAt ? (
          <time title={formatTime(r.lastLoginAt)}>{relativeTime(r.lastLoginAt, t)}</time>
        ) : null,
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
}

/** A user's name (prefix) and whether the user may sign in. */
export function userFilters(tr: (key: string) => string): Filter[] {
  return [
    { id: 'username', label: tr('screens.admin.username'), kind: 'text' },
    {
      id: 'status',
      label: tr('screens.admin.status'),
      kind: 'select',
      options: (['active', 'disabled'] as const).map((s) => ({
        value: s,
        label: tr(`screens.admin.statuses.${s}`),
      })),
    },
  ];
}
