import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints, errno } from '../../../contract/index.ts';
import { callback, payin } from '../../../contract/machines.ts';
import { api, isApiError } from '../../lib/api.ts';
import { formatTime } from '../../lib/format.ts';
import { hasKey } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { DetailDrawer, DetailFields, DetailSection, JsonBlock } from '../../ui/DetailDrawer.tsx';
import { CallbackHistory, PostingTable, ProofImage } from './history.tsx';
import { money, PushBadge, StatusBadge } from './parts.tsx';
import './order.css';

/** How often an order that is still moving (waiting to be paid, callback on its way) is read again. */
const movingMs = 2_500;

/** A collection order in full: every field, snapshots, callbacks, ledger lines, images and its actions. */
export function OrderDrawer({
  orderNo,
  onClose,
  onShown,
}: {
  orderNo: string;
  onClose: () => void;
  /** The order on screen (null while none): the palette's row actions act on it. */
  onShown?: (order: Contexts['payin'] | null) => void;
}) {
  const t = useT();
  // The UTR check and supplement forms are what a drawer is opened for: fetched now, a key opens them at once.
  useEffect(() => {
    void import('./UtrCheckDialog.tsx');
    void import('./SupplementDialog.tsx');
  }, []);
  const info = useQuery({
    queryKey: ['order-info', 'payin', orderNo],
    queryFn: ({ signal }) =>
      api(endpoints.merchantOrder.info, { orderNo }, { signal, quiet: [errno.notFound, errno.invalid] }),
    retry: false,
    refetchInterval: (q) => {
      const o = q.state.data;
      if (!o) return false;
      const moving =
        payin.is('underWay', o.status) || o.callbacks.some((c) => c.status === callback.state.pending);
      return moving ? movingMs : false;
    },
  });
  const o = info.data;
  // A deleted order (or another merchant's) answers 404 even when an earlier read is still cached.
  const missing = isApiError(info.error, errno.notFound) || isApiError(info.error, errno.invalid);
  const current = o && !missing ? o : null;
  useEffect(() => onShown?.(current), [current, onShown]);

  if (!o || missing) {
    return (
      <DetailDrawer title={orderNo} onClose={onClose}>
        <p className={missing ? 'notice' : 'muted'} role={missing ? 'alert' : 'status'}>
          {missing ? t('screens.order.notFound', { orderNo }) : t('app.loading')}
        </p>
      </DetailDrawer>
    );
  }

  const paidByKey = o.paidBy ? `screens.order.paidByKinds.${o.paidBy}` : '';
  return (
    <DetailDrawer
      title={o.orderNo}
      subtitle={
        <>
          <StatusBadge kind="payin" status={o.status} />
          <PushBadge kind="payin" status={o.status} pushStatus={o.pushStatus} />
          <span className="drawer-amount">
            {money(o.amount)} {o.currency}
          </span>
        </>
      }
      onClose={onClose}
      context="payin"
      target={o}
    >
      <DetailFields
        items={[
          { label: t('screens.order.orderNo'), value: o.orderNo, mono: true },
          { label: t('screens.order.merchantOrderNo'), value: o.merchantOrderNo, mono: true },
          { label: t('screens.order.merchant'), value: o.merchantCode },
          { label: t('screens.order.status'), value: <StatusBadge kind="payin" status={o.status} /> },
          {
            label: t('screens.order.pushStatus'),
            value: <PushBadge kind="payin" status={o.status} pushStatus={o.pushStatus} />,
          },
          { label: t('screens.order.amount'), value: `${money(o.amount)} ${o.currency}` },
          { label: t('screens.order.paidAmount'), value: money(o.paidAmount) },
          { label: t('screens.order.fee'), value: money(o.fee) },
          ...(o.agentCommission !== '0.00'
            ? [{ label: t('screens.order.agentCommission'), value: money(o.agentCommission) }]
            : []),
          { label: t('screens.order.utr'), value: o.utr, mono: true },
          { label: t('screens.order.payerUtr'), value: o.payerUtr, mono: true },
          {
            label: t('screens.order.paidBy'),
            value: paidByKey && hasKey(paidByKey) ? t(paidByKey) : o.paidBy,
          },
          { label: t('screens.order.channel'), value: o.channelCode },
          { label: t('screens.order.channelOrderId'), value: o.channelOrderId, mono: true },
          { label: t('screens.order.createdAt'), value: formatTime(o.createdAt) },
          { label: t('screens.order.expiresAt'), value: formatTime(o.expiresAt) },
          { label: t('screens.order.paidAt'), value: formatTime(o.paidAt) },
          { label: t('screens.order.callbackAt'), value: formatTime(o.callbackAt) },
          { label: t('screens.order.failureReason'), value: o.failureReason },
          { label: t('screens.order.notifyUrl'), value: o.notifyUrl, mono: true },
          { label: t('screens.order.returnUrl'), value: o.returnUrl, mono: true },
          { label: t('screens.order.payUrl'), value: o.payUrl, mono: true },
        ]}
      />
      <CallbackHistory events={o.callbacks} />
      <PostingTable postings={o.postings} />
      <DetailSection title={t('screens.order.images')}>
        {o.images.length === 0 ? (
          <p className="muted">{t('screens.order.noImages')}</p>
        ) : (
          <div className="proof-images">
            {o.images.map((img, i) => (
              <ProofImage key={img.id} id={img.id} label={t('screens.order.imageN', { n: i + 1 })} />
            ))}
          </div>
        )}
      </DetailSection>
      <DetailSection title={t('screens.order.snapshots')}>
        <JsonBlock summary={t('screens.order.request')} value={o.requestSnapshot} />
        <JsonBlock summary={t('screens.order.response')} value={o.responseSnapshot} />
      </DetailSection>
    </DetailDrawer>
  );
}
