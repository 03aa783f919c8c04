import { useCallback, useMemo } from 'react';
import { Link, useSearchParams } from 'wouter';
import type { Contexts } from '../../../commands/index.ts';
import { creditsOfDay, paidOrdersOfDay } from '../../../commands/statement.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { type Translate, useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { type TotalItem, TotalsBar } from '../../ui/TotalsBar.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { Money } from '../wallet/money.tsx';
import '../statement/statement.css';
import './stat.css';

type Row = Contexts['accountRow'];
type Answer = Extract<Output<typeof endpoints.statOrder.balance>, { view: 'account' }>;
type Figures = Answer['totals'][number];
type CountSum = Row['paid'];
type By = Answer['by'];

const isZero = (amount: string) => /^-?0(\.0+)?$/.test(amount);

/** "3 · 4,500.00": how many and how much. */
function CountSumCell({ value, href }: { value: CountSum; href?: string | undefined }) {
  const text = (
    <>
      <span className="num">{thousands(value.count)}</span>
      <span className="muted"> · </span>
      <Money value={value.sum} />
    </>
  );
  return href && value.count > 0 ? (
    <Link href={href} className="link recon-link">
      {text}
    </Link>
  ) : (
    <span className={value.count > 0 ? undefined : 'muted'}>{text}</span>
  );
}

/** Paid less matched credits: nothing when the bank proves every payment, else painted. */
function Difference({ amount }: { amount: string }) {
  return (
    <span className={isZero(amount) ? 'muted' : 'recon-differs'}>
      <Money value={amount} />
    </span>
  );
}

/** A day's statement coverage: nothing when the statements cover it, else what is missing, in words. */
function Coverage({ value }: { value: Row['statement'] }) {
  const t = useT();
  if (value === null) return <span className="muted">—</span>;
  return (
    <span title={t(`reconciliation.coverage.${value}Hint`)}>
      <Badge tone={value === 'missing' ? 'bad' : 'warn'}>{t(`reconciliation.coverage.${value}`)}</Badge>
    </span>
  );
}

const c = columnsOf<Row>('reconciliation');

function columnsFor(by: By): Column<Row>[] {
  const figure = (
    id: 'paid' | 'matchedCredits' | 'unmatchedCredits' | 'unproved',
    href?: (r: Row) => string,
  ) =>
    c.of(id, (r) => Number(r[id].sum), {
      // Headers shorter than the totals' names: the seven columns fit 1280 px with the menu open.
      header: `reconciliation.headers.${id}`,
      cell: (r) => <CountSumCell value={r[id]} href={href?.(r)} />,
      width: 'minmax(124px, 1fr)',
    });
  return [
    c.text('day', '104px'),
    c.text('label', 'minmax(140px, 1.2fr)', {
      header: by === 'channel' ? 'reconciliation.channel' : 'reconciliation.account',
    }),
    // The difference first: what a person looks for, in view on a narrow screen too.
    c.money('difference', 'minmax(104px, 0.8fr)', { cell: (r) => <Difference amount={r.difference} /> }),
    // What the statements say of the day: missing, or a balance that does not follow (by account only).
    ...(by === 'account'
      ? [
          c.of('statement', (r) => r.statement, {
            cell: (r) => <Coverage value={r.statement} />,
            width: 'minmax(104px, 0.7fr)',
          }),
          // Held by the bank's freeze at the day's end: the bank's balance is the book's less this.
          c.of('frozen', (r) => (r.frozen === null ? null : Number(r.frozen)), {
            cell: (r) => (r.frozen === null || Number(r.frozen) === 0 ? '—' : <Money value={r.frozen} />),
            width: 'minmax(104px, 0.7fr)',
          }),
        ]
      : []),
    figure('paid'),
    figure('matchedCredits'),
    figure('unmatchedCredits', creditsOfDay),
    figure('unproved', paidOrdersOfDay),
    ...(by === 'channel'
      ? [
          c.of('clearing', (r) => (r.clearing === null ? null : Number(r.clearing)), {
            cell: (r) => (r.clearing === null ? '—' : <Money value={r.clearing} />),
            width: 'minmax(120px, 0.8fr)',
          }),
        ]
      : []),
    c.text('currency', '80px', { hiddenByDefault: true, sortable: false }),
  ];
}

/** The period's totals per currency, above the rows. */
function totalsOf(answer: Answer | undefined, t: Translate): TotalItem[] {
  const items: TotalItem[] = [
    {
      id: 'period',
      label: t('reconciliation.period'),
      value: answer ? `${answer.from} – ${answer.to}` : '—',
      title: answer?.businessTimeZone,
    },
  ];
  const countSum = (c: Figures, id: 'paid' | 'matchedCredits' | 'unmatchedCredits' | 'unproved') => ({
    id: `${id}-${c.currency}`,
    label: t(`reconciliation.${id}`),
    value: `${thousands(c[id].count)} · ${thousands(c[id].sum)} ${c.currency}`,
  });
  for (const c of answer?.totals ?? []) {
    items.push(
      countSum(c, 'paid'),
      countSum(c, 'matchedCredits'),
      countSum(c, 'unmatchedCredits'),
      countSum(c, 'unproved'),
      ...(c.clearing === null
        ? []
        : [
            {
              id: `clearing-${c.currency}`,
              label: t('reconciliation.clearing'),
              value: thousands(c.clearing),
            },
          ]),
      {
        id: `difference-${c.currency}`,
        label: t('reconciliation.difference'),
        value: <Difference amount={c.difference} />,
        tone: 'strong' as const,
      },
    );
  }
  return items;
}

/**
 * Reconciliation: per business day and receiving account (or bank channel), what was paid against what
 * the bank statements prove: paid orders, statement credits that paid them, credits no order accounts
 * for, paid orders with no statement line, the channel clearing (by channel) and the difference. A
 * difference's figures link to their lines: unmatched credits to that day's statement flow, unproved
 * orders to that day's paid pay-ins (u and p on the focused row).
 */
export default function AccountScreen() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const by: By = params.get('by') === 'channel' ? 'channel' : 'account';
  const setBy = (next: By) =>
    setParams(
      (p) => {
        const out = new URLSearchParams(p);
        if (next === 'channel') out.set('by', next);
        else out.delete('by');
        out.delete('cursor');
        return out;
      },
      { replace: true },
    );
  const columns = useMemo(() => columnsFor(by), [by]);
  const filters: Filter[] = [
    { id: 'from', label: t('reconciliation.from'), kind: 'date', hint: t('reconciliation.periodHint') },
    { id: 'to', label: t('reconciliation.to'), kind: 'date' },
  ];
  const toInput = useCallback(
    (f: Record<string, string>) => ({ view: 'account', by, from: f.from, to: f.to }),
    [by],
  );
  return (
    <ListScreen
      id={`reconciliation-${by}`}
      endpoint={endpoints.statOrder.balance}
      context="accountRow"
      command="statOrder.reconciliation"
      hint="reconciliation.hint"
      columns={columns}
      filters={filters}
      toInput={toInput}
      paging="cursor"
      rowKey={(r) => `${r.day}|${r.accountId ?? ''}|${r.channelId ?? ''}|${r.currency}`}
      detailTitle={(r) => `${r.label} · ${r.day}`}
      toolbarStart={
        <fieldset className="segmented recon-by" aria-label={t('reconciliation.by')}>
          {(['account', 'channel'] as const).map((b) => (
            <button key={b} type="button" aria-pressed={by === b} onClick={() => setBy(b)}>
              {t(`reconciliation.byOptions.${b}`)}
            </button>
          ))}
        </fieldset>
      }
      countOf={(answer) => (answer as Answer).total}
      summary={(answer) => (
        <TotalsBar
          label={t('reconciliation.totals')}
          busy={answer === undefined}
          items={totalsOf(answer as Answer | undefined, t)}
        />
      )}
    />
  );
}
