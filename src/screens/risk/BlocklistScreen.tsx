import type { Contexts } from '../../../commands/index.ts';
import { blocklistKinds } from '../../../contract/endpoints/risk.ts';
import { endpoints } from '../../../contract/index.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';

type Entry = Contexts['blocklistEntry'];

const c = columnsOf<Entry>('screens.blocklist');

const columns: Column<Entry>[] = [
  c.of('active', (r) => r.active, {
    cell: (r) => (
      <Badge tone={r.active ? 'bad' : 'muted'}>
        {t(r.active ? 'screens.blocklist.states.active' : 'screens.blocklist.states.inactive')}
      </Badge>
    ),
    width: '100px',
  }),
  c.of('kind', (r) => t(`risk.rules.${r.kind}`), { width: '140px' }),
  c.text('value', 'minmax(180px, 2fr)'),
  c.text('reason', 'minmax(160px, 2fr)'),
  c.time('endsAt', '170px'),
  c.text('createdBy', '130px'),
  c.time('createdAt', '170px'),
  c.text('removedBy', '130px', { hiddenByDefault: true }),
  c.time('removedAt', '170px', { hiddenByDefault: true }),
];

/** The blocklist: every entry newest first, what applies now marked; removed ones stay as the record. */
export default function BlocklistScreen() {
  const t = useT();
  const filters: Filter[] = [
    {
      id: 'kind',
      label: t('screens.blocklist.kind'),
      kind: 'select',
      options: blocklistKinds.map((k) => ({ value: k, label: t(`risk.rules.${k}`) })),
    },
    {
      id: 'state',
      label: t('screens.blocklist.active'),
      kind: 'select',
      options: (['active', 'inactive'] as const).map((s) => ({
        value: s,
        label: t(`screens.blocklist.states.${s}`),
      })),
    },
  ];
  return (
    <ListScreen
      id="blocklist"
      endpoint={endpoints.blocklist.list}
      context="blocklistEntry"
      create
      columns={columns}
      filters={filters}
      paging="cursor"
      detailTitle={(r) => `${t(`risk.rules.${r.kind}`)}: ${r.value}`}
    />
  );
}
