import { useStore } from '@nanostores/react';
import { useEffect, useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import { thousands } from '../../lib/format.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { ExportButtons } from '../../ui/ExportButton.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { type TotalItem, TotalsBar } from '../../ui/TotalsBar.tsx';
import { Page } from '../Page.tsx';
import { Money } from '../wallet/money.tsx';
import { learnTimeZone, ReportPeriodChooser, useReportPeriod } from './ReportPeriod.tsx';
import './stat.css';

type Row = Contexts['merchantBalanceRow'];
type Answer = Extract<Output<typeof endpoints.statOrder.balance>, { view: 'merchant' }>;
type Figures = Answer['totals'][number];
type Translate = ReturnType<typeof useT>;

/** The movements between opening and closing, each signed as it changes the wallet. */
const movements = [
  'collected',
  'payouts',
  'settlements',
  'recharges',
  'transfers',
  'adjustments',
  'other',
] as const;
type Movement = (typeof movements)[number];
type Amount = Movement | 'opening' | 'closing' | 'ledgerClosing';

const isZero = (amount: string) => /^-?0(\.0+)?$/.test(amount);
/** The ledger's closing less the report's, as an amount ("10.00"). */
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
    <Badge tone="bad">{t('reports.payout.differs', { amount: thousands(difference(figures)) })}</Badge>
  ) : (
    <Badge tone="ok">{t('reports.payout.ties')}</Badge>
  );
}

/** A movement: nothing reads muted, so the figures that moved the wallet stand out. */
function MovementCell({ value }: { value: string }) {
  return (
    <span className={isZero(value) ? 'muted' : undefined}>
      <Money value={value} signed={!isZero(value)} />
    </span>
  );
}

function columnsFor(platform: boolean, t: Translate): Column<Row>[] {
  const amount = (id: Amount, width = 'minmax(136px, 1fr)'): Column<Row> => ({
    id,
    header: `reports.payout.${id}`,
    value: (r) => Number(r[id]),
    cell: (r) =>
      id === 'opening' || id === 'closing' || id === 'ledgerClosing' ? (
        <span className={r.mismatch && id !== 'opening' ? 'd0-differs' : undefined}>
          <Money value={r[id]} />
        </span>
      ) : (
        <MovementCell value={r[id]} />
      ),
    width,
    sortable: true,
    // Nothing else is expected to move a wallet: the column is there to turn on when a total shows one.
    hiddenByDefault: id === 'other' || id === 'ledgerClosing',
  });
  return [
    ...(platform
      ? [
          {
            id: 'merchantCode',
            header: 'reports.merchant',
            value: (r: Row) => r.merchantCode,
            cell: (r: Row) => <span title={r.merchantName}>{r.merchantCode}</span>,
            width: 'minmax(80px, 0.6fr)',
            sortable: true,
          },
        ]
      : []),
    {
      id: 'wallet',
      header: 'reports.payout.wallet',
      value: (r) => r.wallet,
      cell: (r) => t(`reports.payout.wallets.${r.wallet}`),
      width: 'minmax(90px, 0.7fr)',
      sortable: true,
    },
    {
      id: 'check',
      header: 'reports.payout.check',
      value: (r) => (r.mismatch ? 1 : 0),
      cell: (r) => <Check figures={r} t={t} />,
      width: 'minmax(120px, 0.8fr)',
      sortable: true,
    },
    amount('opening'),
    ...movements.map((m) => amount(m, 'minmax(128px, 0.9fr)')),
    amount('closing'),
    amount('ledgerClosing'),
    {
      id: 'currency',
      header: 'reports.currency',
      value: (r) => r.currency,
      width: '76px',
      hiddenByDefault: true,
    },
  ];
}

/** One wallet's (and currency's) figures over the period: opening, its movements, closing, the ledger's check. */
function walletTotals(c: Figures, t: Translate): TotalItem[] {
  const key = `${c.wallet}-${c.currency}`;
  const amount = (id: Amount, strong = false): TotalItem => ({
    id: `${id}-${key}`,
    label: t(`reports.payout.${id}`),
    value: `${thousands(c[id])} ${c.currency}`,
    ...(strong ? { tone: 'strong' as const } : {}),
  });
  return [
    {
      id: `wallet-${key}`,
      label: t('reports.payout.wallet'),
      value: t('reports.payout.walletMerchants', {
        wallet: t(`reports.payout.wallets.${c.wallet}`),
        n: thousands(c.merchants),
      }),
      tone: 'strong',
    },
    amount('opening'),
    // Only the movements this wallet had: a payout wallet collects nothing, say.
    ...movements.filter((m) => !isZero(c[m])).map((m) => amount(m)),
    amount('closing', true),
    { id: `check-${key}`, label: t('reports.payout.check'), value: <Check figures={c} t={t} /> },
  ];
}

/** The period, then a bar per wallet and currency: two wallets' figures never run into one line. */
function Summary({ answer }: { answer: Answer | undefined }) {
  const t = useT();
  useEffect(() => learnTimeZone(answer), [answer]);
  const period: TotalItem = {
    id: 'period',
    label: t('reports.period'),
    value: answer ? `${answer.from} – ${answer.to}` : '—',
    title: answer?.businessTimeZone,
  };
  const totals = answer?.totals ?? [];
  if (!totals.length)
    return <TotalsBar label={t('reports.totals')} busy={answer === undefined} items={[period]} />;
  return (
    <>
      {totals.map((c, i) => (
        <TotalsBar
          key={`${c.wallet}-${c.currency}`}
          label={`${t('reports.totals')} · ${t(`reports.payout.wallets.${c.wallet}`)} ${c.currency}`}
          items={[...(i === 0 ? [period] : []), ...walletTotals(c, t)]}
        />
      ))}
    </>
  );
}

const noFilters = () => ({});

/**
 * Settlement statistics: per merchant, wallet and currency over the period, the ledger's opening balance,
 * what moved it (collections net of fees, payouts, settlements, recharges, transfers, adjustments) and the
 * closing, checked against the ledger's. No chart: a wallet's period is one flow, read across a row.
 * Merchant users see their own merchant.
 */
export default function PayoutStatScreen() {
  const t = useT();
  const grants = useStore($grants);
  const platform = grants?.kind === 'platform';
  const range = useReportPeriod();
  const [merchantId, setMerchantId] = useMerchantParam();
  const columns = useMemo(() => columnsFor(platform, t), [platform, t]);
  const period = range.period ? { ...range.period, ...(platform ? { merchantId } : {}) } : null;
  const title = t('commands.statOrder.payoutStats.title');
  return (
    <Page
      title={title}
      actions={
        <ExportButtons
          endpoint={endpoints.statOrder.balanceExport}
          input={period}
          filename="settlement-statistics"
        />
      }
    >
      <p className="muted">{t('reports.payout.hint')}</p>
      <DataTable
        id={platform ? 'payoutStatsPlatform' : 'payoutStats'}
        label={title}
        endpoint={endpoints.statOrder.balance}
        context="merchantBalanceRow"
        columns={columns}
        toInput={noFilters}
        input={period ? { view: 'merchant', ...period } : null}
        blockedText={range.error ? t(range.error) : undefined}
        paging="cursor"
        rowKey={(r) => `${r.merchantId}|${r.wallet}|${r.currency}`}
        detailTitle={(r) =>
          `${r.merchantCode} · ${t(`reports.payout.wallets.${r.wallet}`)} · ${range.period?.from ?? ''} – ${range.period?.to ?? ''}`
        }
        toolbarStart={
          <>
            <ReportPeriodChooser range={range} />
            {platform && <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
          </>
        }
        countOf={(answer) => (answer as Answer).total}
        summary={(answer) => <Summary answer={answer as Answer | undefined} />}
      />
    </Page>
  );
}
