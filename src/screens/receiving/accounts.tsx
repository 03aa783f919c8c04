import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';

type Account = Contexts['receivingAccount'];

const statusTone = { active: 'ok', paused: 'muted', frozen: 'bad' } as const;

/** Today's figures against the limits: "1,200.00 / 50,000.00 · 3 / 100". */
function todayLabel(a: Account): string {
  const count = a.dailyCount === null ? String(a.todayCount) : `${a.todayCount} / ${a.dailyCount}`;
  return `${thousands(a.todayAmount)} / ${thousands(a.dailyLimit)} · ${count}`;
}

const columns = (kind: Account['kind']): Column<Account>[] => [
  {
    id: 'bankName',
    header: 'screens.receiving.bankName',
    value: (r) => r.bankName,
    width: '130px',
    sortable: true,
  },
  {
    id: 'accountNumber',
    header: 'screens.receiving.accountNumber',
    value: (r) => r.accountNumber,
    cell: (r) => <code>{r.accountNumber}</code>,
    width: '170px',
  },
  {
    id: 'accountName',
    header: 'screens.receiving.accountName',
    value: (r) => r.accountName,
    width: 'minmax(140px, 1fr)',
  },
  ...(kind === 'card'
    ? [
        {
          id: 'holderName',
          header: 'screens.receiving.holder',
          value: (r: Account) => r.holderName,
          width: '130px',
        },
      ]
    : []),
  { id: 'ifsc', header: 'screens.receiving.ifsc', value: (r) => r.ifsc, width: '120px' },
  {
    id: 'vpa',
    header: 'screens.receiving.vpa',
    value: (r) => r.vpa,
    width: '150px',
    hiddenByDefault: kind === 'card',
  },
  {
    id: 'status',
    header: 'screens.receiving.status',
    value: (r) => r.status,
    cell: (r) => <Badge tone={statusTone[r.status]}>{t(`screens.receiving.statuses.${r.status}`)}</Badge>,
    width: '90px',
    sortable: true,
  },
  {
    id: 'today',
    header: 'screens.receiving.today',
    value: (r) => Number(r.todayAmount),
    cell: (r) => todayLabel(r),
    width: 'minmax(200px, 1fr)',
    sortable: true,
  },
  {
    id: 'perOrder',
    header: 'screens.receiving.perOrder',
    value: (r) => r.maxAmount,
    cell: (r) =>
      `${r.minAmount ? thousands(r.minAmount) : '—'} – ${r.maxAmount ? thousands(r.maxAmount) : '—'}`,
    width: '160px',
    hiddenByDefault: true,
  },
  {
    id: 'lastKnownBalance',
    header: 'screens.receiving.lastKnownBalance',
    value: (r) => r.lastKnownBalance,
    cell: (r) => (r.lastKnownBalance === null ? '—' : thousands(r.lastKnownBalance)),
    width: '130px',
    hiddenByDefault: kind === 'public',
  },
];

/** The receiving accounts of one kind, with today's figures against their limits. */
export function AccountsPage({ kind }: { kind: Account['kind'] }) {
  const tr = useT();
  const title = tr(
    kind === 'public' ? 'commands.receivingAccount.public.title' : 'commands.receivingAccount.cards.title',
  );
  const filters: Filter[] = [
    { id: 'q', label: tr('screens.receiving.search'), kind: 'text' },
    {
      id: 'status',
      label: tr('screens.receiving.status'),
      kind: 'select',
      options: (['active', 'paused', 'frozen'] as const).map((s) => ({
        value: s,
        label: tr(`screens.receiving.statuses.${s}`),
      })),
    },
    ...(kind === 'card'
      ? [{ id: 'holderId', label: tr('screens.receiving.holderId'), kind: 'text' as const }]
      : []),
  ];
  return (
    <Page
      title={title}
      actions={
        <CommandButton
          id={kind === 'public' ? 'receivingAccount.createPublic' : 'receivingAccount.createCard'}
          primary
        />
      }
    >
      <DataTable
        id={`receiving-${kind}`}
        label={title}
        endpoint={endpoints.receivingAccount.list}
        context="receivingAccount"
        columns={columns(kind)}
        filters={filters}
        input={{ kind }}
        paging="page"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => `${r.bankName} · ${r.accountNumber}`}
        live
      />
    </Page>
  );
}
