/** What every list of sign-in users shares: its filters and columns. */
import { formatTime, relativeTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { roleName } from '../../lib/names.ts';
import { Badge } from '../../ui/Badge.tsx';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';

interface UserRow {
  roles: readonly { name: string }[];
  status: 'active' | 'disabled';
  googleBound: boolean;
  lastLoginAt: string | null;
  createdAt: string;
}

export function userColumns<R extends UserRow>(): Column<R>[] {
  const c = columnsOf<R>('screens.admin');
  return [
    c.of('roles', (r) => r.roles.map((x) => roleName(x.name)).join(', '), {
      width: 'minmax(120px, 1.2fr)',
      sortable: false,
    }),
    c.badge('status', (r) => (r.status === 'active' ? 'ok' : 'muted'), 'statuses', '90px'),
    c.of('googleBound', (r) => r.googleBound, {
      header: 'screens.admin.google',
      cell: (r) => (
        <Badge tone={r.googleBound ? 'info' : 'warn'}>
          {t(r.googleBound ? 'screens.admin.bound' : 'screens.admin.unbound')}
        </Badge>
      ),
      width: '96px',
      sortable: false,
    }),
    c.time('lastLoginAt', 'minmax(110px, 0.8fr)', {
      header: 'screens.admin.lastLogin',
      cell: (r) =>
        r.lastLoginAt ? (
          <time title={formatTime(r.lastLoginAt)}>{relativeTime(r.lastLoginAt, t)}</time>
        ) : null,
    }),
    c.time('createdAt', '150px', { hiddenByDefault: true }),
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
