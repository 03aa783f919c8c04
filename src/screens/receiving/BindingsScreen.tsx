import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { ListPage } from './ListPage.tsx';

type Binding = Contexts['cardBinding'];

const columns: Column<Binding>[] = [
  {
    id: 'account',
    header: 'screens.receiving.account',
    value: (r) => r.accountLabel,
    width: 'minmax(180px, 1fr)',
  },
  {
    id: 'channel',
    header: 'screens.receiving.channel',
    value: (r) => r.channelCode,
    cell: (r) => <code>{r.channelCode}</code>,
    width: '130px',
    sortable: true,
  },
  { id: 'weight', header: 'screens.receiving.weight', value: (r) => r.weight, width: '80px', sortable: true },
  {
    id: 'merchants',
    header: 'screens.receiving.merchants',
    value: (r) => r.merchantIds.join(','),
    cell: (r) => (r.merchantIds.length ? r.merchantIds.join(', ') : t('screens.receiving.allMerchants')),
    width: '150px',
  },
  {
    id: 'hours',
    header: 'screens.receiving.hours',
    value: (r) => r.activeFrom,
    cell: (r) => (r.activeFrom ? `${r.activeFrom} – ${r.activeTo}` : t('screens.receiving.allDay')),
    width: '130px',
  },
];

/** Which receiving accounts each bank channel routes pay-ins to, by weight, merchants and hours. */
export default function BindingsScreen() {
  const tr = useT();
  const filters: Filter[] = [
    { id: 'accountId', label: tr('screens.receiving.accountId'), kind: 'text' },
    { id: 'channelId', label: tr('screens.receiving.channelId'), kind: 'text' },
  ];
  return (
    <ListPage
      id="card-binding"
      endpoint={endpoints.cardBinding.list}
      context="cardBinding"
      columns={columns}
      filters={filters}
      detailTitle={(r) => `${r.accountLabel} · ${r.channelCode}`}
    />
  );
}
