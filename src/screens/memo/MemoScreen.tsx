import type { Contexts } from '../../../commands/index.ts';
import { memoAudiences } from '../../../contract/endpoints/memo.ts';
import { endpoints } from '../../../contract/index.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { NoticeText } from '../dashboard/Notices.tsx';
import { ListScreen } from '../ListScreen.tsx';

type Memo = Contexts['memo'];

const c = columnsOf<Memo>('screens.memo');

const columns: Column<Memo>[] = [
  c.of('pinned', (r) => r.pinned, {
    cell: (r) => (r.pinned ? <Badge tone="info">{t('screens.dashboard.pinned')}</Badge> : null),
    width: '84px',
  }),
  c.text('title', 'minmax(200px, 2fr)'),
  c.of('audience', (r) => t(`screens.memo.audiences.${r.audience}`), { width: '130px' }),
  c.of('body', (r) => r.body.replace(/\s+/g, ' '), { width: 'minmax(160px, 2fr)', sortable: false }),
  c.time('createdAt', '170px'),
  c.time('updatedAt', '170px', { hiddenByDefault: true, sortable: false }),
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
    <ListScreen
      id="memo"
      endpoint={endpoints.memo.list}
      context="memo"
      create
      columns={columns}
      filters={filters}
      paging="cursor"
      detailTitle={(r) => r.title}
      detail={(r) => <NoticeText text={r.body} />}
    />
  );
}
