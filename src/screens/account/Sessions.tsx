import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { timeColumn } from '../columns.tsx';
import { Page } from '../Page.tsx';

type Session = Contexts['session'];

const time = (id: 'createdAt' | 'lastSeenAt' | 'expiresAt') =>
  timeColumn<Session, typeof id>(id, `screens.sessions.${id}`);

const columns: Column<Session>[] = [
  time('lastSeenAt'),
  {
    id: 'current',
    header: 'screens.sessions.current',
    value: (r) => r.current,
    cell: (r) => (r.current ? <Badge tone="info">{t('screens.sessions.currentBadge')}</Badge> : null),
    width: '110px',
  },
  { id: 'ip', header: 'screens.sessions.ip', value: (r) => r.ip, width: '140px' },
  {
    id: 'userAgent',
    header: 'screens.sessions.userAgent',
    value: (r) => r.userAgent,
    width: 'minmax(200px, 3fr)',
  },
  time('createdAt'),
  time('expiresAt'),
];

/** Where the signed-in user is signed in: its own open sessions, the most recently used first. */
export default function Sessions() {
  const t = useT();
  return (
    <Page title={t('commands.auth.sessions.title')} actions={<CommandButton id="auth.logoutAll" />}>
      <p className="muted">{t('screens.sessions.intro')}</p>
      <DataTable
        id="sessions"
        label={t('commands.auth.sessions.title')}
        endpoint={endpoints.auth.sessions}
        context="session"
        columns={columns}
        paging="page"
        rowKey={(r) => `${r.createdAt}/${r.ip}/${r.userAgent}`}
        detailTitle={(r) => `${r.ip} · ${formatTime(r.lastSeenAt)}`}
      />
    </Page>
  );
}
