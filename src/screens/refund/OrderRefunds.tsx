import { useQuery } from '@tanstack/react-query';
import { endpoints } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { type RefundStatus, refund } from '../../../contract/machines.ts';
import { api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { DetailSection } from '../../ui/DetailDrawer.tsx';

const tone: Record<RefundStatus, Tone> = {
  requested: 'info',
  processing: 'warn',
  success: 'ok',
  failed: 'bad',
  rejected: 'bad',
  cancelled: 'muted',
};

/** A paid pay-in's refunds in its drawer: what was paid, refunded and is left, and each refund's state. */
export function OrderRefunds({ payinId }: { payinId: number }) {
  const t = useT();
  const q = useQuery({
    queryKey: ['order-refunds', payinId],
    queryFn: ({ signal }) => api(endpoints.refund.ofOrder, { payinId }, { signal }),
    refetchInterval: (query) =>
      query.state.data?.list.some((r) => refund.is('open', r.status)) ? 2_500 : false,
  });
  const d = q.data;
  if (!d) return null;
  return (
    <DetailSection title={t('screens.refund.section')}>
      <p className="refund-sums">
        {t('screens.refund.sums', {
          refunded: thousands(d.refundedAmount),
          left: thousands(d.refundable),
        })}
      </p>
      {d.list.length === 0 ? (
        <p className="muted">{t('screens.refund.none')}</p>
      ) : (
        <div className="mini-table-wrap">
          <table className="mini-table">
            <thead>
              <tr>
                <th>{t('screens.refund.refundNo')}</th>
                <th className="num">{t('screens.refund.amount')}</th>
                <th>{t('screens.refund.status')}</th>
                <th>{t('screens.refund.account')}</th>
                <th>{t('screens.refund.reason')}</th>
              </tr>
            </thead>
            <tbody>
              {d.list.map((r) => (
                <tr key={r.id}>
                  <td className="mono">{r.refundNo}</td>
                  <td className="num">{thousands(r.amount)}</td>
                  <td>
                    <Badge tone={tone[r.status]}>{stateLabel(t, refund, r.status)}</Badge>
                  </td>
                  <td className="mono">{r.accountNumber}</td>
                  <td>{r.failureReason ?? r.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </DetailSection>
  );
}
