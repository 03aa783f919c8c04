import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'wouter';
import { allows, endpoints, errno } from '../../../contract/index.ts';
import { settlement } from '../../../contract/machines.ts';
import { api, isApiError } from '../../lib/api.ts';
import { formatTime } from '../../lib/format.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { DetailDrawer, DetailFields, DetailSection } from '../../ui/DetailDrawer.tsx';
import { useDrawerParam } from '../../ui/drawerParam.ts';
import { PostingTable } from '../order/history.tsx';
import { byAt, pendingDrawer, useDrawerRecord } from '../recordDrawer.tsx';
import { money, type Settlement, SettlementStatus, type Wallet, walletApi } from './parts.tsx';
import '../order/order.css';
import './settlement.css';

/** While open, other people decide it (the queue is shared): the drawer reads it again this often. */
const openMs = 5_000;

/**
 * A settlement application in full: every field, who applied, confirmed and completed it, the second
 * approval it waits for, the withdrawal slip it is on, its proof images and its ledger lines, with the
 * actions its state allows (buttons and single keys).
 */
export function SettlementDrawer({
  wallet,
  settlementNo,
  onClose,
  onShown,
}: {
  /** Unknown when a link names only the number (the approvals queue's): both wallets are asked. */
  wallet: Wallet | undefined;
  settlementNo: string;
  onClose: () => void;
  /** The application on screen (null while none): the palette's row actions act on it. */
  onShown?: (row: Settlement | null) => void;
}) {
  const t = useT();
  const grants = useStore($grants);
  const info = useQuery({
    queryKey: ['settlement-info', wallet ?? null, settlementNo],
    queryFn: ({ signal }) => readSettlement(wallet, settlementNo, signal),
    retry: false,
    refetchInterval: (q) => (q.state.data && settlement.is('open', q.state.data.status) ? openMs : false),
  });
  const { record: s, missing } = useDrawerRecord(info, onShown);
  if (!s) {
    return pendingDrawer({
      title: settlementNo,
      missing,
      notFound: t('screens.settlement.notFound', { settlementNo }),
      onClose,
    });
  }

  const usdt = s.type === 'usdt';
  return (
    <DetailDrawer
      title={s.settlementNo}
      subtitle={
        <>
          <SettlementStatus row={s} />
          <span className="drawer-amount">
            {money(s.auditAmount ?? s.amount)} {s.currency}
          </span>
        </>
      }
      onClose={onClose}
      context="settlement"
      target={s}
    >
      {s.approval && (
        <p className="notice" role="status">
          {t('screens.settlement.awaitingAt', {
            user: s.approval.requestedBy,
            at: formatTime(s.approval.requestedAt),
          })}{' '}
          {allows(grants, [endpoints.approval.list]) && (
            <Link href="/approvals" className="link">
              {t('commands.approval.list.title')}
            </Link>
          )}
        </p>
      )}
      <DetailFields
        items={[
          { label: t('screens.settlement.settlementNo'), value: s.settlementNo, mono: true },
          { label: t('screens.settlement.merchant'), value: s.merchantCode },
          { label: t('screens.settlement.wallet'), value: t(`screens.settlement.wallets.${s.wallet}`) },
          { label: t('screens.settlement.type'), value: t(`screens.settlement.types.${s.type}`) },
          { label: t('screens.settlement.status'), value: <SettlementStatus row={s} /> },
          { label: t('screens.settlement.amount'), value: `${money(s.amount)} ${s.currency}` },
          {
            label: t('screens.settlement.auditAmount'),
            value: s.auditAmount ? `${money(s.auditAmount)} ${s.currency}` : null,
          },
          { label: t('screens.settlement.fee'), value: money(s.fee) },
          ...(usdt
            ? [
                { label: t('screens.settlement.returnAddress'), value: s.returnAddress, mono: true },
                { label: t('screens.settlement.price'), value: s.price },
                { label: t('screens.settlement.usdtAmount'), value: s.usdtAmount },
              ]
            : [
                { label: t('screens.settlement.accountName'), value: s.accountName },
                { label: t('screens.settlement.cardNumber'), value: s.cardNumber, mono: true },
                { label: t('screens.settlement.ifsc'), value: s.ifsc, mono: true },
              ]),
          { label: t('screens.settlement.reference'), value: s.reference, mono: true },
          { label: t('screens.settlement.reason'), value: s.reason },
          { label: t('screens.settlement.slipNo'), value: s.slipNo, mono: true },
          { label: t('screens.settlement.applied'), value: byAt(s.appliedBy, s.createdAt) },
          { label: t('screens.settlement.confirmed'), value: byAt(s.confirmedBy, s.confirmedAt) },
          { label: t('screens.settlement.completed'), value: byAt(s.completedBy, s.completedAt) },
          { label: t('screens.settlement.failedAt'), value: formatTime(s.failedAt) },
        ]}
      />
      {s.attachments.length > 0 && (
        <DetailSection title={t('screens.settlement.proofs')}>
          <div className="proof-images">
            {s.attachments.map((id, i) => (
              <SettlementImage
                key={id}
                wallet={s.wallet}
                id={id}
                label={t('screens.order.imageN', { n: i + 1 })}
              />
            ))}
          </div>
        </DetailSection>
      )}
      <PostingTable postings={s.postings} />
    </DetailDrawer>
  );
}

/** Quiet while probing: a link without the wallet asks the collection wallet first, then the payout one. */
const probing = [errno.notFound, errno.invalid, errno.forbidden];

/** The settlement of that number, in its wallet, or in whichever wallet has it. */
async function readSettlement(wallet: Wallet | undefined, settlementNo: string, signal: AbortSignal) {
  const wallets: Wallet[] = wallet ? [wallet] : ['collection', 'payout'];
  let missing: unknown;
  for (const w of wallets) {
    try {
      return await api(walletApi(w).info, { settlementNo }, { signal, quiet: probing });
    } catch (error) {
      if (!probing.some((code) => isApiError(error, code))) throw error;
      missing = error;
    }
  }
  throw missing;
}

/** A proof image, fetched with the settlement's tenancy (a plain <img src> would carry no token). */
function SettlementImage({ wallet, id, label }: { wallet: Wallet; id: number; label: string }) {
  const image = useQuery({
    queryKey: ['settlement-image', wallet, id],
    queryFn: ({ signal }) => api(walletApi(wallet).image, { id }, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (!image.data) return <div className="proof-image placeholder" aria-busy="true" />;
  const src = `data:${image.data.mime};base64,${image.data.dataBase64}`;
  return (
    <a className="proof-image" href={src} download={`settlement-proof-${id}`} title={label}>
      <img src={src} alt={label} />
    </a>
  );
}

/**
 * How a settlement list opens its rows: in the settlement drawer, deep-linked as `?settlement=<number>`.
 * A wallet's own list knows the wallet; the queue holds both wallets' applications (each read through
 * its own endpoints), so its links name the wallet too, and a link with the number alone leaves the
 * drawer to find it.
 */
export function useSettlementDrawer(wallet: Wallet | 'named') {
  const [params] = useSearchParams();
  const drawer = useDrawerParam<Settlement>(
    'settlement',
    (r) => r.settlementNo,
    wallet === 'named' ? { wallet: (r) => r.wallet } : {},
  );
  const named = params.get('wallet');
  const shown =
    wallet !== 'named' ? wallet : named === 'payout' || named === 'collection' ? named : undefined;
  return {
    /** The list's side: rows keyed and titled by their number, opened in the drawer. */
    table: {
      rowKey: (r: Settlement) => r.settlementNo,
      detailTitle: (r: Settlement) => r.settlementNo,
      onOpen: drawer.open,
      openRecord: drawer.record,
    },
    drawer: drawer.value && (
      <SettlementDrawer
        wallet={shown}
        settlementNo={drawer.value}
        onClose={drawer.close}
        onShown={drawer.setShown}
      />
    ),
  };
}
