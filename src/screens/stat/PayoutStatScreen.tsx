import { useStore } from '@nanostores/react';
import { useEffect, useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { walletMovements } from '../../../contract/endpoints/stat.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { $grants } from '../../lib/session.ts';
import { type Translate, useT } from '../../lib/useT.ts';
import type { Column } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { type TotalItem, TotalsBar } from '../../ui/TotalsBar.tsx';
import { columnsOf, merchantColumn } from '../columns.tsx';
import { Money } from '../wallet/money.tsx';
import { LedgerCheck } from './LedgerCheck.tsx';
import { learnTimeZone, useReportPeriod } from './ReportPeriod.tsx';
import { ReportScreen } from './ReportScreen.tsx';
import './stat.css';

type Row = Contexts['merchantBalanceRow'];
type Answer = Extract<Output<typeof endpoints.statOrder.balance>, { view: 'merchant' }>;
type Figures = Answer['totals'][number];

/** The movements between opening and closing, each signed as it changes the wallet. */
const movements = walletMovements;
type Movement = (typeof movements)[number];
type Amount = Movement | 'opening' | 'closing' | 'ledgerClosing';

const isZero = (amount: string) => /^-?0(\.0+)?$/.test(amount);

/** A movement: nothing reads muted, so the figures that moved the wallet stand out. */
function MovementCell({ value }: { value: string }) {
  return (
    <span className={isZero(value) ? 'muted' : undefined}>
      <Money value={value} signed={!isZero(value)} />
    </span>
  );
}

const c = columnsOf<Row>('reports.payout');

function columnsFor(platform: boolean, t: Translate): Column<Row>[] {
  const amount = (id: Amount, width = 'minmax(136px, 1fr)') =>
    c.money(id, width, {
      cell: (r) =>
        id === 'opening' || id === 'closing' || id === 'ledgerClosing' ? (
          <span className={r.mismatch && id !== 'opening' ? 'd0-differs' : undefined}>
            <Money value={r[id]} />
          </span>
        ) : (
          <MovementCell value={r[id]} />
        ),
      // Nothing else is expected to move a wallet: the column is there to turn on when a total shows one.
      hiddenByDefault: id === 'other' || id === 'ledgerClosing',
    });
  return [
    ...merchantColumn<Row>('reports.merchant', platform),
    c.text('wallet', 'minmax(90px, 0.7fr)', { cell: (r) => t(`reports.payout.wallets.${r.wallet}`) }),
    c.of('check', (r) => (r.mismatch ? 1 : 0), {
      cell: (r) => <LedgerCheck figures={r} area="reports.payout" t={t} />,
      width: 'minmax(120px, 0.8fr)',
    }),
    amount('opening'),
    ...movements.map((m) => amount(m, 'minmax(128px, 0.9fr)')),
    amount('closing'),
    amount('ledgerClosing'),
    c.text('currency', '76px', { header: 'reports.currency', hiddenByDefault: true, sortable: false }),
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
    {
      id: `check-${key}`,
      label: t('reports.payout.check'),
      value: <LedgerCheck figures={c} area="reports.payout" t={t} />,
    },
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
  return (
    <ReportScreen
      id={platform ? 'payoutStatsPlatform' : 'payoutStats'}
      endpoint={endpoints.statOrder.balance}
      context="merchantBalanceRow"
      command="statOrder.payoutStats"
      range={range}
      hint="reports.payout.hint"
      exporter={endpoints.statOrder.balanceExport}
      exportInput={period}
      exportName="settlement-statistics"
      columns={columns}
      input={period ? { view: 'merchant', ...period } : null}
      rowKey={(r) => `${r.merchantId}|${r.wallet}|${r.currency}`}
      detailTitle={(r) =>
        `${r.merchantCode} · ${t(`reports.payout.wallets.${r.wallet}`)} · ${range.period?.from ?? ''} – ${range.period?.to ?? ''}`
      }
      toolbarStart={platform && <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
      summary={(answer) => <Summary answer={answer as Answer | undefined} />}
    />
  );
}
