import { useQuery } from '@tanstack/react-query';
import { type Contexts, settlementWallets } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { settlement } from '../../../contract/machines.ts';
import { api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import type { Column } from '../../ui/DataTable.tsx';
import { columnsOf, hidden, merchantCell, merchantWidth } from '../columns.tsx';
import { TimeCell } from '../order/parts.tsx';

export type Settlement = Contexts['settlement'];
export type Wallet = Settlement['wallet'];

/** A wallet's endpoints: `settlementPayment` for the collection wallet, `settlementPayout` for the payout wallet. */
export const walletApi = (wallet: Wallet) => endpoints[settlementWallets[wallet].base];

const statusTone: Record<Settlement['status'], Tone> = {
  to_be_confirmed: 'warn',
  confirmed: 'info',
  settled: 'ok',
  failed: 'bad',
};

/**
 * The state, and beside it the second approval a confirmation waits for; `compact` (a list's cell) shows
 * only the approval while one waits, the state in its tooltip.
 */
export function SettlementStatus({
  row,
  compact = false,
}: {
  row: Pick<Settlement, 'status' | 'approval'>;
  compact?: boolean;
}) {
  const state = stateLabel(t, settlement, row.status);
  const waiting = row.approval && (
    <span title={`${state} · ${t('screens.settlement.awaiting', { user: row.approval.requestedBy })}`}>
      <Badge tone="info">{t('screens.settlement.secondApproval')}</Badge>
    </span>
  );
  if (compact && waiting) return waiting;
  return (
    <span className="settlement-status">
      <Badge tone={statusTone[row.status]}>{state}</Badge>
      {waiting}
    </span>
  );
}

/** An amount string with thousands separators, or nothing. */
export const money = (value: string | null | undefined) => (value ? thousands(value) : '');

/** Where the money goes: the bank account (name, number, IFSC) or the USDT return address. */
export function destinationOf(s: Settlement): string {
  return s.type === 'bank'
    ? [s.accountName, s.cardNumber, s.ifsc].filter(Boolean).join(' · ')
    : (s.returnAddress ?? '');
}

export function Destination({ row }: { row: Settlement }) {
  if (row.type === 'usdt')
    return (
      <span className="mono" title={row.returnAddress ?? ''}>
        {row.returnAddress}
      </span>
    );
  return (
    <span title={destinationOf(row)}>
      {row.accountName} <span className="mono muted">{row.cardNumber}</span>
    </span>
  );
}

/** How long an application has waited: seconds, minutes, hours and minutes, days and hours. */
export function ageText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return t('screens.settlement.age.seconds', { n: s });
  if (s < 3600) return t('screens.settlement.age.minutes', { n: Math.floor(s / 60) });
  if (s < 86_400)
    return t('screens.settlement.age.hours', { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
  return t('screens.settlement.age.days', { d: Math.floor(s / 86_400), h: Math.floor((s % 86_400) / 3600) });
}

const c = columnsOf<Settlement>('screens.settlement');

/** The columns both kinds of list share, after their own first ones. */
export function settlementColumns(options: { platform: boolean; wallet: boolean }): Column<Settlement>[] {
  return [
    c.text('settlementNo', '148px', {
      cell: (r) => <span className="mono">{r.settlementNo}</span>,
      sortable: false,
    }),
    c.text('merchantCode', merchantWidth, {
      header: 'screens.settlement.merchant',
      cell: merchantCell,
      hiddenByDefault: !options.platform,
    }),
    ...(options.wallet
      ? [
          c.of('wallet', (r) => t(`screens.settlement.wallets.${r.wallet}`), {
            width: '88px',
            sortable: false,
          }),
        ]
      : []),
    // The destination says it (an account or an address); the filter and the drawer name it.
    c.of('type', (r) => t(`screens.settlement.types.${r.type}`), { width: '64px', ...hidden }),
    c.money('amount', '116px', { cell: (r) => <span className="num">{money(r.amount)}</span> }),
    c.money('auditAmount', '116px', {
      header: 'screens.settlement.audited',
      cell: (r) => <span className="num">{money(r.auditAmount)}</span>,
      sortable: false,
    }),
    c.money('fee', '72px', {
      cell: (r) => <span className="num">{money(r.fee)}</span>,
      sortable: false,
      hiddenByDefault: options.wallet,
    }),
    c.text('status', '132px', { cell: (r) => <SettlementStatus row={r} compact /> }),
    c.of('destination', destinationOf, {
      cell: (r) => <Destination row={r} />,
      width: 'minmax(112px, 1.4fr)',
      sortable: false,
    }),
    c.text('reference', '130px', { cell: (r) => <span className="mono">{r.reference}</span>, ...hidden }),
    c.text('reason', 'minmax(120px, 1fr)', hidden),
    c.text('appliedBy', '110px', hidden),
    c.time('completedAt', '160px', { cell: (r) => <TimeCell value={r.completedAt} />, ...hidden }),
  ];
}

/**
 * The available balance of a wallet (the merchant's own, or the merchant a platform user chose), what
 * an application's amount and fee are held from. Nothing while a platform user has no merchant chosen.
 */
export function useAvailable(wallet: Wallet, merchantId: number | undefined, ask: boolean) {
  const info = useQuery({
    queryKey: ['wallet-info', merchantId ?? null],
    queryFn: ({ signal }) => api(endpoints.merchantWallet.info, { merchantId }, { signal }),
    enabled: ask,
    refetchInterval: 15_000,
  });
  const b = info.data;
  if (!b) return null;
  return {
    currency: b.currency,
    available: wallet === 'collection' ? b.collection.available : b.payout.available,
  };
}

/** The application a dialog acts on, in a few lines, so nobody acts on the wrong one. */
export function SettlementSummary({ row }: { row: Settlement }) {
  const tr = useT();
  return (
    <dl className="order-summary">
      <dt>{tr('screens.settlement.settlementNo')}</dt>
      <dd className="mono">{row.settlementNo}</dd>
      <dt>{tr('screens.settlement.merchant')}</dt>
      <dd>
        {row.merchantCode} · {tr(`screens.settlement.wallets.${row.wallet}`)} ·{' '}
        {tr(`screens.settlement.types.${row.type}`)}
      </dd>
      <dt>{tr('screens.settlement.amount')}</dt>
      <dd>
        {money(row.amount)} {row.currency} · {tr('screens.settlement.fee')} {money(row.fee)} ·{' '}
        <SettlementStatus row={row} />
      </dd>
      {row.auditAmount && (
        <>
          <dt>{tr('screens.settlement.auditAmount')}</dt>
          <dd>
            {money(row.auditAmount)} {row.currency}
          </dd>
        </>
      )}
      <dt>{tr('screens.settlement.destination')}</dt>
      <dd className={row.type === 'usdt' ? 'mono' : undefined}>{destinationOf(row)}</dd>
    </dl>
  );
}
