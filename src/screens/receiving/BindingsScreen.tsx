import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';

type Binding = Contexts['cardBinding'];

const c = columnsOf<Binding>('screens.receiving');

const columns: Column<Binding>[] = [
  c.of('account', (r) => r.accountLabel, { width: 'minmax(180px, 1fr)', sortable: false }),
  c.of('channel', (r) => r.channelCode, { cell: (r) => <code>{r.channelCode}</code>, width: '130px' }),
  c.text('weight', '80px'),
  c.of('merchants', (r) => r.merchantIds.join(','), {
    cell: (r) => (r.merchantIds.length ? r.merchantIds.join(', ') : t('screens.receiving.allMerchants')),
    width: '150px',
    sortable: false,
  }),
  c.of('hours', (r) => r.activeFrom, {
    cell: (r) => (r.activeFrom ? `${r.activeFrom} – ${r.activeTo}` : t('screens.receiving.allDay')),
    width: '130px',
    sortable: false,
  }),
];

/** Which receiving accounts each bank channel routes pay-ins to, by weight, merchants and hours. */
export default function BindingsScreen() {
  const tr = useT();
  const filters: Filter[] = [
    { id: 'accountId', label: tr('screens.receiving.accountId'), kind: 'text' },
    { id: 'channelId', label: tr('screens.receiving.channelId'), kind: 'text' },
  ];
  return (
    <ListScreen
      id="card-binding"
      endpoint={endpoints.cardBinding.list}
      context="cardBinding"
      create
      paging="page"
      columns={columns}
      filters={filters}
      detailTitle={(r) => `${r.accountLabel} · ${r.channelCode}`}
    />
  );
}
