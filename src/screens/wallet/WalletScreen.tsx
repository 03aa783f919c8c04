import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { Link, useSearchParams } from 'wouter';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { type EntryKind, entryKindLabel } from '../../../contract/ledgerKinds.ts';
import { api } from '../../lib/api.ts';
import { formatTime, thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { Can } from '../../ui/Can.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { MerchantScope } from '../MerchantPage.tsx';
import { dayBound, Money, walletAccounts } from './money.tsx';
import './wallet.css';

const { merchantWallet } = endpoints;
type Posting = Contexts['walletPosting'];

/** The change log's columns: a posting's account, cause, and the balance before / change / after. */
const c = columnsOf<Posting>('screens.wallet');
const amountWidth = 'minmax(100px, 0.7fr)';

const columns: Column<Posting>[] = [
  c.time('at', '165px', { sortable: false }),
  c.text('account', 'minmax(165px, 1fr)', { cell: (r) => <AccountName kind={r.account} />, sortable: false }),
  c.text('entryKind', 'minmax(175px, 1.2fr)', {
    header: 'screens.wallet.kind',
    cell: (r) => <KindName kind={r.entryKind} />,
    sortable: false,
  }),
  // Valued as the amount strings, not numbers (as `c.money` would): none of the three sorts.
  c.text('balanceBefore', amountWidth, {
    header: 'screens.wallet.before',
    cell: (r) => <Money value={r.balanceBefore} />,
    sortable: false,
  }),
  c.text('amount', amountWidth, {
    header: 'screens.wallet.change',
    cell: (r) => <Money value={r.amount} signed />,
    sortable: false,
  }),
  c.text('balanceAfter', amountWidth, {
    header: 'screens.wallet.after',
    cell: (r) => <Money value={r.balanceAfter} />,
    sortable: false,
  }),
  c.text('entryId', '90px', { header: 'screens.wallet.entry', hiddenByDefault: true, sortable: false }),
];

function AccountName({ kind }: { kind: string }) {
  const t = useT();
  return <>{t(`screens.wallet.accounts.${kind}`)}</>;
}

function KindName({ kind }: { kind: string }) {
  const t = useT();
  return <>{entryKindLabel(t, kind)}</>;
}

/** The balances (wallets, reserve, what is owed); each one filters the change log to its account. */
function Balances({ merchantId }: { merchantId: number | undefined }) {
  const t = useT();
  const [params] = useSearchParams();
  const info = useQuery({
    queryKey: ['wallet-info', merchantId ?? null],
    queryFn: ({ signal }) => api(merchantWallet.info, { merchantId }, { signal }),
    // Pay-ins and payouts move these all day: keep them current while the screen is open.
    refetchInterval: 15_000,
  });
  const link = (account: string) => {
    const next = new URLSearchParams(params);
    if (next.get('account') === account) next.delete('account');
    else next.set('account', account);
    next.delete('cursor');
    const q = next.toString();
    return q ? `/wallet?${q}` : '/wallet';
  };
  const b = info.data;
  const items = b
    ? [
        { account: 'collection_available', value: b.collection.available },
        { account: 'collection_pending', value: b.collection.pending },
        { account: 'payout_available', value: b.payout.available },
        { account: 'frozen', value: b.frozen },
        { account: 'reserve', value: b.reserve },
        // The debt shown as what is owed (positive); its log shows the account's own signed balance.
        { account: 'merchant_debt', value: b.owed },
      ]
    : [];
  return (
    <section className="card" aria-labelledby="wallet-balances">
      <div className="card-head">
        <h2 className="card-title" id="wallet-balances">
          {t('screens.wallet.balances')}
        </h2>
        {b && <span className="muted">{t('screens.wallet.currency', { currency: b.currency })}</span>}
      </div>
      {!b ? (
        <p className="muted">{t('app.loading')}</p>
      ) : (
        <div className="stats wallet-balances">
          {items.map((item) => (
            <Link
              key={item.account}
              href={link(item.account)}
              className={`stat${params.get('account') === item.account ? ' active' : ''}`}
              aria-current={params.get('account') === item.account ? 'true' : undefined}
              data-account={item.account}
            >
              <span className="stat-value">{thousands(item.value)}</span>
              <span className="stat-label">{t(`screens.wallet.accounts.${item.account}`)}</span>
            </Link>
          ))}
        </div>
      )}
    </section>
  );
}

/** The causes the change log filters by: the plain kinds that move a merchant's wallets. */
const walletLogKinds: readonly EntryKind[] = [
  'payin_paid',
  'wallet_transfer',
  'recharge',
  'payout_success',
  'settlement_hold',
  'settlement_release',
  'settlement_paid',
  'reserve_release',
];

function ChangeLog({ merchantId }: { merchantId: number | undefined }) {
  const t = useT();
  const filters: Filter[] = [
    {
      id: 'account',
      label: t('screens.wallet.account'),
      kind: 'select',
      options: walletAccounts.map((a) => ({ value: a, label: t(`screens.wallet.accounts.${a}`) })),
    },
    {
      id: 'kind',
      label: t('screens.wallet.kind'),
      kind: 'select',
      options: walletLogKinds.map((k) => ({ value: k, label: entryKindLabel(t, k) })),
    },
    { id: 'from', label: t('screens.wallet.from'), kind: 'date' },
    { id: 'to', label: t('screens.wallet.to'), kind: 'date' },
  ];
  const toInput = useCallback(
    (f: Record<string, string>) => ({
      merchantId,
      account: f.account,
      kind: f.kind,
      from: dayBound(f.from, false),
      to: dayBound(f.to, true),
    }),
    [merchantId],
  );
  return (
    <DataTable
      id="walletLog"
      label={t('screens.wallet.log')}
      endpoint={merchantWallet.log}
      context="walletPosting"
      columns={columns}
      filters={filters}
      toInput={toInput}
      paging="cursor"
      rowKey={(r) => `${r.entryId}:${r.account}`}
      detailTitle={(r) => `${entryKindLabel(t, r.entryKind)} · ${formatTime(r.at)}`}
    />
  );
}

/** Wallet: balances, the balance change log, and the transfer from collection to payout balance. */
export default function WalletScreen() {
  const t = useT();
  return (
    <MerchantScope
      title={t('commands.merchantWallet.info.title')}
      actions={<CommandButton id="merchantWallet.transfer" primary />}
      chooseText={t('screens.wallet.chooseMerchant')}
    >
      {(merchantId) => (
        <>
          <Can needs={[merchantWallet.info]}>
            <Balances merchantId={merchantId} />
          </Can>
          <Can needs={[merchantWallet.log]}>
            <ChangeLog merchantId={merchantId} />
          </Can>
        </>
      )}
    </MerchantScope>
  );
}
