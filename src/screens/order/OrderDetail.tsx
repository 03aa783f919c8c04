import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import type { Output } from '../../../contract/endpoint.ts';
import { type Endpoint, endpoints, errno } from '../../../contract/index.ts';
import { callback } from '../../../contract/machines.ts';
import { api } from '../../lib/api.ts';
import { useT } from '../../lib/useT.ts';
import { DetailDrawer, DetailFields, DetailSection, JsonBlock } from '../../ui/DetailDrawer.tsx';
import { pendingDrawer, useDrawerRecord } from '../recordDrawer.tsx';
import { orderLines } from './fields.tsx';
import { CallbackHistory, PostingTable } from './history.tsx';
import { money, type OrderKind, PushBadge, StatusBadge } from './parts.tsx';
import './order.css';

const infoOf = { payin: endpoints.merchantOrder.info, payout: endpoints.merchantPayout.info } as const;
export type OrderInfo<K extends OrderKind> = Output<(typeof infoOf)[K]>;

/** How often an order that is still moving (its state, or a callback on its way) is read again. */
const movingMs = 2_500;

/** What a list hands the drawer of one kind of order. */
export interface OrderDrawerProps<K extends OrderKind> {
  orderNo: string;
  onClose: () => void;
  /** The order on screen (null while none): the palette's row actions act on it. */
  onShown?: ((order: Contexts[K] | null) => void) | undefined;
}

interface Props<K extends OrderKind> extends OrderDrawerProps<K> {
  kind: K;
  /** Its state changes by itself (so the drawer follows it). */
  moving: (status: OrderInfo<K>['status']) => boolean;
  /** The fields it lists, in their order. */
  fields: (o: OrderInfo<K>) => string[];
  /** What the kind shows between the ledger lines and the snapshots. */
  children?: (o: OrderInfo<K>) => ReactNode;
}

/** How every order's drawer begins, either kind: its numbers, its merchant, its two states and its amount. */
export const orderHead = ['orderNo', 'merchantOrderNo', 'merchantCode', 'status', 'pushStatus', 'amount'];

/** An order in full, either kind: its fields, callbacks, ledger lines, snapshots and its actions. */
export function OrderDetail<K extends OrderKind>({ kind, orderNo, onClose, onShown, ...p }: Props<K>) {
  const t = useT();
  const info = useQuery({
    queryKey: ['order-info', kind, orderNo],
    queryFn: ({ signal }) =>
      // Both kinds' detail endpoints take the order's number.
      api(infoOf[kind] as Endpoint, { orderNo } as never, {
        signal,
        quiet: [errno.notFound, errno.invalid],
      }) as Promise<OrderInfo<K>>,
    retry: false,
    refetchInterval: (q) => {
      const o = q.state.data;
      if (!o) return false;
      return p.moving(o.status) || o.callbacks.some((c) => c.status === callback.state.pending)
        ? movingMs
        : false;
    },
  });
  const { record: o, missing } = useDrawerRecord(
    info,
    onShown as ((order: OrderInfo<K> | null) => void) | undefined,
  );
  if (!o) {
    return pendingDrawer({
      title: orderNo,
      missing,
      notFound: t('screens.order.notFound', { orderNo }),
      onClose,
    });
  }

  return (
    <DetailDrawer
      title={o.orderNo}
      subtitle={
        <>
          <StatusBadge kind={kind} status={o.status} />
          <PushBadge kind={kind} status={o.status} pushStatus={o.pushStatus} />
          <span className="drawer-amount">
            {money(o.amount)} {o.currency}
          </span>
        </>
      }
      onClose={onClose}
      context={kind}
      target={o as Contexts[K]}
    >
      <DetailFields items={orderLines(kind, o, p.fields(o))} />
      <CallbackHistory events={o.callbacks} />
      <PostingTable postings={o.postings} />
      {p.children?.(o)}
      <DetailSection title={t('screens.order.snapshots')}>
        <JsonBlock summary={t('screens.order.request')} value={o.requestSnapshot} />
        <JsonBlock summary={t('screens.order.response')} value={o.responseSnapshot} />
      </DetailSection>
    </DetailDrawer>
  );
}
