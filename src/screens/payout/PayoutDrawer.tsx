import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints, errno } from '../../../contract/index.ts';
import { callback, payout } from '../../../contract/machines.ts';
import { api, isApiError } from '../../lib/api.ts';
import { formatTime } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { DetailDrawer, DetailFields, DetailSection, JsonBlock } from '../../ui/DetailDrawer.tsx';
import { CallbackHistory, PostingTable } from '../order/history.tsx';
import { money, PushBadge, StatusBadge } from '../order/parts.tsx';
import '../order/order.css';

const movingMs = 2_500;

/** Under way and not waiting for a person: its state changes by itself, so the drawer follows it. */
const moving = (status: Contexts['payout']['status']) =>
  payout.is('underWay', status) && !payout.is('needsPerson', status);

/** A payout in full: every field, the payee, snapshots, callbacks, ledger lines and its actions. */
export function PayoutDrawer({
  orderNo,
  onClose,
  onShown,
}: {
  orderNo: string;
  onClose: () => void;
  /** The order on screen (null while none): the palette's row actions act on it. */
  onShown?: (order: Contexts['payout'] | null) => void;
}) {
  const t = useT();
  const info = useQuery({
    queryKey: ['order-info', 'payout', orderNo],
    queryFn: ({ signal }) =>
      api(endpoints.merchantPayout.info, { orderNo }, { signal, quiet: [errno.notFound, errno.invalid] }),
    retry: false,
    refetchInterval: (q) => {
      const o = q.state.data;
      if (!o) return false;
      return moving(o.status) || o.callbacks.some((c) => c.status === callback.state.pending)
        ? movingMs
        : false;
    },
  });
  const o = info.data;
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

  return (
    <DetailDrawer
      title={o.orderNo}
      subtitle={
        <>
          <StatusBadge kind="payout" status={o.status} />
          <PushBadge kind="payout" status={o.status} pushStatus={o.pushStatus} />
          <span className="drawer-amount">
            {money(o.amount)} {o.currency}
          </span>
        </>
      }
      onClose={onClose}
      context="payout"
      target={o}
    >
      <DetailFields
        items={[
          { label: t('screens.order.orderNo'), value: o.orderNo, mono: true },
          { label: t('screens.order.merchantOrderNo'), value: o.merchantOrderNo, mono: true },
          { label: t('screens.order.merchant'), value: o.merchantCode },
          { label: t('screens.order.status'), value: <StatusBadge kind="payout" status={o.status} /> },
          {
            label: t('screens.order.pushStatus'),
            value: <PushBadge kind="payout" status={o.status} pushStatus={o.pushStatus} />,
          },
          { label: t('screens.payout.amount'), value: `${money(o.amount)} ${o.currency}` },
          { label: t('screens.order.fee'), value: money(o.fee) },
          { label: t('screens.payout.accountName'), value: o.accountName },
          { label: t('screens.payout.accountNumber'), value: o.accountNumber, mono: true },
          { label: t('screens.payout.ifsc'), value: o.ifsc, mono: true },
          { label: t('screens.order.utr'), value: o.utr, mono: true },
          { label: t('screens.payout.source'), value: t(`screens.payout.sources.${o.source}`) },
          { label: t('screens.order.channel'), value: o.channelCode },
          { label: t('screens.order.channelOrderId'), value: o.channelOrderId, mono: true },
          { label: t('screens.order.createdAt'), value: formatTime(o.createdAt) },
          { label: t('screens.payout.completedAt'), value: formatTime(o.completedAt) },
          { label: t('screens.order.callbackAt'), value: formatTime(o.callbackAt) },
          { label: t('screens.order.failureReason'), value: o.failureReason },
          { label: t('screens.order.notifyUrl'), value: o.notifyUrl, mono: true },
        ]}
      />
      <CallbackHistory events={o.callbacks} />
      <PostingTable postings={o.postings} />
      <DetailSection title={t('screens.order.snapshots')}>
        <JsonBlock summary={t('screens.order.request')} value={o.requestSnapshot} />
        <JsonBlock summary={t('screens.order.response')} value={o.responseSnapshot} />
      </DetailSection>
    </DetailDrawer>
  );
}
