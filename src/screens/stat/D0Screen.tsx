import { useStore } from '@nanostores/react';
import { useCallback, useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import { thousands } from '../../lib/format.ts';
import { $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { type TotalItem, TotalsBar } from '../../ui/TotalsBar.tsx';
import { merchantColumn } from '../columns.tsx';
import { Page } from '../Page.tsx';
import { Money } from '../wallet/money.tsx';
import '../wallet/wallet.css';
import './stat.css';

type Row = Contexts['d0Row'];
type Answer = Extract<Output<typeof endpoints.statOrder.balance>, { view: 'd0' }>;
type Figures = Answer['totals'][number];
type Translate = ReturnType<typeof useT>;

/** The ledger's closing less the summary's, as an amount ("10.00"). */
const difference = (f: Pick<Figures, 'closing' | 'ledgerClosing'>) =>
  formatMinor(Math.round(Number(f.ledgerClosing) * 100) - Math.round(Number(f.closing) * 100));

/** Ties with the ledger, or by how much it does not: the flag a person looks for. */
function Check({
  figures,
  t,
}: {
  figures: Pick<Figures, 'closing' | 'ledgerClosing' | 'mismatch'>;
  t: Translate;
}) {
  return figures.mismatch ? (
    <Badge tone="bad">{t('screens.d0.differs', { amount: thousands(difference(figures)) })}</Badge>
  ) : (
    <Badge tone="ok">{t('screens.d0.ties')}</Badge>
  );
}

type MoneyField = 'opening' | 'gross' | 'fees' | 'netCredited' | 'settledOut' | 'transferred' | 'adjustments';
type Amount = MoneyField | 'closing' | 'ledgerClosing';

function columnsFor(platform: boolean, t: Translate): Column<Row>[] {
  const money = (id: Amount, width = 'minmax(120px, 1fr)'): Column<Row> => ({
    id,
    header: `screens.d0.${id}`,
    value: (r) => Number(r[id]),
    cell: (r) => <Money value={r[id]} />,
    width,
    sortable: true,
  });
  const closing = (id: 'closing' | 'ledgerClosing'): Column<Row> => ({
    ...money(id),
    cell: (r) => (
      <span className={r.mismatch ? 'd0-differs' : undefined}>
        <Money value={r[id]} />
      </span>
    ),
  });
  return [
    { id: 'day', header: 'screens.d0.day', value: (r) => r.day, width: '104px', sortable: true },
    ...merchantColumn<Row>('screens.d0.merchant', platform),
    {
      id: 'check',
      header: 'screens.d0.check',
      value: (r) => (r.mismatch ? 1 : 0),
      cell: (r) => <Check figures={r} t={t} />,
      width: 'minmax(150px, 0.9fr)',
      sortable: true,
    },
    money('opening'),
    {
      id: 'paidCount',
      header: 'screens.d0.paidCount',
      value: (r) => r.paidCount,
      cell: (r) => thousands(r.paidCount),
      width: '100px',
      sortable: true,
    },
    money('gross'),
    money('fees', 'minmax(90px, 0.6fr)'),
    money('netCredited'),
    money('settledOut'),
    money('transferred', 'minmax(90px, 0.7fr)'),
    money('adjustments', 'minmax(90px, 0.6fr)'),
    closing('closing'),
    closing('ledgerClosing'),
    { id: 'currency', header: 'screens.d0.currency', value: (r) => r.currency, width: '84px' },
  ];
}

/** The period's figures per currency, above the rows: the summary's totals row. */
function totalsOf(answer: Answer | undefined, t: Translate): TotalItem[] {
  const items: TotalItem[] = [
    {
      id: 'period',
      label: t('screens.d0.period'),
      value: answer ? `${answer.from} – ${answer.to}` : '—',
      title: answer?.businessTimeZone,
    },
  ];
  for (const c of answer?.totals ?? []) {
    const amount = (id: Amount, strong = false): TotalItem => ({
      id: `${id}-${c.currency}`,
      label: t(`screens.d0.${id}`),
      value: `${thousands(c[id])} ${c.currency}`,
      ...(strong ? { tone: 'strong' as const } : {}),
    });
    items.push(
      { id: `merchants-${c.currency}`, label: t('screens.d0.merchants'), value: thousands(c.merchants) },
      amount('opening'),
      { id: `paid-${c.currency}`, label: t('screens.d0.paidCount'), value: thousands(c.paidCount) },
      amount('gross'),
      amount('fees'),
      amount('netCredited', true),
      amount('settledOut', true),
      amount('transferred'),
      amount('adjustments'),
      amount('closing', true),
      amount('ledgerClosing'),
      { id: `check-${c.currency}`, label: t('screens.d0.check'), value: <Check figures={c} t={t} /> },
    );
  }
  return items;
}

/**
 * The D0 settlement summary: per merchant and business day, the collection wallet (available and
 * pending) from the opening balance through the day's paid orders, settlements, transfers and
 * adjustments to its closing, and whether that closing is the ledger's. Merchant users see their own;
 * platform users every merchant's or one chosen. The period's totals above the rows.
 */
export default function D0Screen() {
  const t = useT();
  const user = useStore($user);
  const platform = user?.kind === 'platform';
  const [merchantId, setMerchantId] = useMerchantParam();
  const columns = useMemo(() => columnsFor(platform, t), [platform, t]);
  const filters: Filter[] = [
    { id: 'from', label: t('screens.d0.from'), kind: 'date', hint: t('screens.d0.periodHint') },
    { id: 'to', label: t('screens.d0.to'), kind: 'date' },
  ];
  const toInput = useCallback(
    (f: Record<string, string>) => ({
      view: 'd0',
      from: f.from,
      to: f.to,
      merchantId: platform ? merchantId : undefined,
    }),
    [platform, merchantId],
  );
  return (
    <Page title={t('commands.statOrder.settlementSummary.title')}>
      <p className="muted">{t('screens.d0.hint')}</p>
      <DataTable
        id={platform ? 'd0SummaryPlatform' : 'd0Summary'}
        label={t('commands.statOrder.settlementSummary.title')}
        endpoint={endpoints.statOrder.balance}
        context="d0Row"
        columns={columns}
        filters={filters}
        toInput={toInput}
        paging="cursor"
        rowKey={(r) => `${r.day}|${r.merchantId}|${r.currency}`}
        detailTitle={(r) => t('screens.d0.rowTitle', { merchant: r.merchantCode, day: r.day })}
        toolbarStart={platform && <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
        countOf={(answer) => (answer as Answer).total}
        summary={(answer) => (
          <TotalsBar
            label={t('screens.d0.totals')}
            busy={answer === undefined}
            items={totalsOf(answer as Answer | undefined, t)}
          />
        )}
      />
    </Page>
  );
}
