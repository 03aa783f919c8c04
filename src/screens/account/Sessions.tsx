import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { Badge } from '../../ui/Badge.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import type { Column } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';

type Session = Contexts['session'];

const c = columnsOf<Session>('screens.sessions');

const columns: Column<Session>[] = [
  c.time('lastSeenAt', '170px'),
  c.of('current', (r) => r.current, {
    cell: (r) => (r.current ? <Badge tone="info">{t('screens.sessions.currentBadge')}</Badge> : null),
    width: '110px',
    sortable: false,
  }),
  c.text('ip', '140px', { sortable: false }),
  c.text('userAgent', 'minmax(200px, 3fr)', { sortable: false }),
  c.time('createdAt', '170px'),
  c.time('expiresAt', '170px'),
];

/** Where the signed-in user is signed in: its own open sessions, the most recently used first. */
export default function Sessions() {
  return (
    <ListScreen
      id="sessions"
      endpoint={endpoints.auth.sessions}
      context="session"
      actions={<CommandButton id="auth.logoutAll" />}
      hint="screens.sessions.intro"
      columns={columns}
      paging="page"
      rowKey={(r) => `${r.createdAt}/${r.ip}/${r.userAgent}`}
      detailTitle={(r) => `${r.ip} · ${formatTime(r.lastSeenAt)}`}
    />
  );
}
