import { useStore } from '@nanostores/react';
import { useCallback, useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { $user } from '../../lib/session.ts';
import { type Translate, useT } from '../../lib/useT.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { type TotalItem, TotalsBar } from '../../ui/TotalsBar.tsx';
import { columnsOf, merchantColumn } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { Money } from '../wallet/money.tsx';
import '../wallet/wallet.css';
import { LedgerCheck } from './LedgerCheck.tsx';
import './stat.css';

type Row = Contexts['d0Row'];
type Answer = Extract<Output<typeof endpoints.statOrder.balance>, { view: 'd0' }>;

type MoneyField =
  | 'opening'
  | 'gross'
  | 'fees'
  | 'netCredited'
  | 'reserveReleased'
  | 'settledOut'
  | 'transferred'
  | 'adjustments'
  | 'frozen'
  | 'writtenOff';
type Amount = MoneyField | 'closing' | 'ledgerClosing';

const c = columnsOf<Row>('screens.d0');
const amountWidth = 'minmax(120px, 1fr)';

function columnsFor(platform: boolean, t: Translate): Column<Row>[] {
  const closing = (id: 'closing' | 'ledgerClosing') =>
    c.money(id, amountWidth, {
      cell: (r) => (
        <span className={r.mismatch ? 'd0-differs' : undefined}>
          <Money value={r[id]} />
        </span>
      ),
    });
  return [
    c.text('day', '104px'),
    ...merchantColumn<Row>('screens.d0.merchant', platform),
    c.of('check', (r) => (r.mismatch ? 1 : 0), {
      cell: (r) => <LedgerCheck figures={r} area="screens.d0" t={t} />,
      width: 'minmax(150px, 0.9fr)',
    }),
    c.money('opening', amountWidth),
    c.count('paidCount', '100px'),
    c.money('gross', amountWidth),
    c.money('fees', 'minmax(90px, 0.6fr)'),
    c.money('netCredited', amountWidth),
    c.money('reserveReleased', 'minmax(90px, 0.6fr)'),
    c.money('settledOut', amountWidth),
    c.money('transferred', 'minmax(90px, 0.7fr)'),
    c.money('adjustments', 'minmax(90px, 0.6fr)'),
    c.money('frozen', 'minmax(90px, 0.6fr)'),
    closing('closing'),
    closing('ledgerClosing'),
    c.money('writtenOff', 'minmax(90px, 0.6fr)'),
    c.text('currency', '84px', { sortable: false }),
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
      amount('reserveReleased'),
      amount('settledOut', true),
      amount('transferred'),
      amount('adjustments'),
      amount('frozen'),
      amount('closing', true),
      amount('ledgerClosing'),
      amount('writtenOff'),
      {
        id: `check-${c.currency}`,
        label: t('screens.d0.check'),
        value: <LedgerCheck figures={c} area="screens.d0" t={t} />,
      },
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
    <ListScreen
      id={platform ? 'd0SummaryPlatform' : 'd0Summary'}
      endpoint={endpoints.statOrder.balance}
      context="d0Row"
      command="statOrder.settlementSummary"
      hint="screens.d0.hint"
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
  );
}
