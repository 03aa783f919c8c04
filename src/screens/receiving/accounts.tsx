import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';

type Account = Contexts['receivingAccount'];

const statusTone = { active: 'ok', paused: 'muted', frozen: 'bad' } as const;

/** Today's figures against the limits: "1,200.00 / 50,000.00 · 3 / 100". */
function todayLabel(a: Account): string {
  const count = a.dailyCount === null ? String(a.todayCount) : `${a.todayCount} / ${a.dailyCount}`;
  return `${thousands(a.todayAmount)} / ${thousands(a.dailyLimit)} · ${count}`;
}

const c = columnsOf<Account>('screens.receiving');

const columns = (kind: Account['kind']): Column<Account>[] => [
  c.text('bankName', '130px'),
  c.code('accountNumber', '170px', { sortable: false }),
  c.text('accountName', 'minmax(140px, 1fr)', { sortable: false }),
  ...(kind === 'card'
    ? [c.text('holderName', '130px', { header: 'screens.receiving.holder', sortable: false })]
    : []),
  c.text('ifsc', '120px', { sortable: false }),
  c.text('vpa', '150px', { sortable: false, hiddenByDefault: kind === 'card' }),
  c.badge('status', (r) => statusTone[r.status], 'statuses', '90px'),
  c.of('today', (r) => Number(r.todayAmount), { cell: (r) => todayLabel(r), width: 'minmax(200px, 1fr)' }),
  c.of('perOrder', (r) => r.maxAmount, {
    cell: (r) =>
      `${r.minAmount ? thousands(r.minAmount) : '—'} – ${r.maxAmount ? thousands(r.maxAmount) : '—'}`,
    width: '160px',
    hiddenByDefault: true,
    sortable: false,
  }),
  c.text('lastKnownBalance', '130px', {
    cell: (r) => (r.lastKnownBalance === null ? '—' : thousands(r.lastKnownBalance)),
    sortable: false,
    hiddenByDefault: kind === 'public',
  }),
];

/** The receiving accounts of one kind, with today's figures against their limits. */
export function AccountsPage({ kind }: { kind: Account['kind'] }) {
  const tr = useT();
  const command = kind === 'public' ? 'receivingAccount.public' : 'receivingAccount.cards';
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
    <ListScreen
      id={`receiving-${kind}`}
      endpoint={endpoints.receivingAccount.list}
      context="receivingAccount"
      command={command}
      actions={
        <CommandButton
          id={kind === 'public' ? 'receivingAccount.createPublic' : 'receivingAccount.createCard'}
          primary
        />
      }
      columns={columns(kind)}
      filters={filters}
      input={{ kind }}
      paging="page"
      detailTitle={(r) => `${r.bankName} · ${r.accountNumber}`}
      live
    />
  );
}
