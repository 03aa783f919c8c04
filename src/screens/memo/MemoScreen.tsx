import type { Contexts } from '../../../commands/index.ts';
import { memoAudiences } from '../../../contract/endpoints/memo.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { NoticeText } from '../dashboard/Notices.tsx';
import { Page } from '../Page.tsx';

type Memo = Contexts['memo'];

const columns: Column<Memo>[] = [
  {
    id: 'pinned',
    header: 'screens.memo.pinned',
    value: (r) => r.pinned,
    cell: (r) => (r.pinned ? <Badge tone="info">{t('screens.dashboard.pinned')}</Badge> : null),
    width: '84px',
    sortable: true,
  },
  {
    id: 'title',
    header: 'screens.memo.title',
    value: (r) => r.title,
    width: 'minmax(200px, 2fr)',
    sortable: true,
  },
  {
    id: 'audience',
    header: 'screens.memo.audience',
    value: (r) => t(`screens.memo.audiences.${r.audience}`),
    width: '130px',
    sortable: true,
  },
  {
    id: 'body',
    header: 'screens.memo.body',
    value: (r) => r.body.replace(/\s+/g, ' '),
    width: 'minmax(160px, 2fr)',
  },
  {
    id: 'createdAt',
    header: 'screens.memo.createdAt',
    value: (r) => r.createdAt,
    cell: (r) => formatTime(r.createdAt),
    width: '170px',
    sortable: true,
  },
  {
    id: 'updatedAt',
    header: 'screens.memo.updatedAt',
    value: (r) => r.updatedAt,
    cell: (r) => formatTime(r.updatedAt),
    width: '170px',
    hiddenByDefault: true,
  },
];

/** The system memo: every notice, newest first; the drawer shows the text as the dashboard does. */
export default function MemoScreen() {
  const t = useT();
  const filters: Filter[] = [
    {
      id: 'audience',
      label: t('screens.memo.audience'),
      kind: 'select',
      options: memoAudiences.map((a) => ({ value: a, label: t(`screens.memo.audiences.${a}`) })),
    },
  ];
  return (
    <Page title={t('commands.memo.list.title')} actions={<CommandButton id="memo.create" primary />}>
      <DataTable
        id="memo"
        label={t('commands.memo.list.title')}
        endpoint={endpoints.memo.list}
        context="memo"
        columns={columns}
        filters={filters}
        paging="cursor"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => r.title}
        detail={(r) => <NoticeText text={r.body} />}
      />
    </Page>
  );
}
