import { useT } from '../../lib/useT.ts';
import { money, type OrderKind, type Payin, type Payout, StatusBadge } from './parts.tsx';

/** The order a dialog acts on, in two lines, so nobody acts on the wrong one. */
export function OrderSummary({ order, kind = 'payin' }: { order: Payin | Payout; kind?: OrderKind }) {
  const t = useT();
  return (
    <dl className="order-summary">
      <dt>{t('screens.order.orderNo')}</dt>
      <dd className="mono">{order.orderNo}</dd>
      <dt>{t('screens.order.merchantOrderNo')}</dt>
      <dd className="mono">{order.merchantOrderNo}</dd>
      <dt>{t('screens.order.amount')}</dt>
      <dd>
        {money(order.amount)} {order.currency} · <StatusBadge kind={kind} status={order.status} />
      </dd>
    </dl>
  );
}
