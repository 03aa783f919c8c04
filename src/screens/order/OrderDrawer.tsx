import { useEffect } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { payin } from '../../../contract/machines.ts';
import { useT } from '../../lib/useT.ts';
import { Can } from '../../ui/Can.tsx';
import { DetailSection } from '../../ui/DetailDrawer.tsx';
import { OrderDisputes } from '../dispute/OrderDisputes.tsx';
import { OrderRefunds } from '../refund/OrderRefunds.tsx';
import { ProofImage } from './history.tsx';
import { OrderDetail, type OrderDrawerProps, orderHead } from './OrderDetail.tsx';

const moving = (status: Contexts['payin']['status']) => payin.is('underWay', status);

/** A collection order in full: every field, snapshots, callbacks, ledger lines, images and its actions. */
export function OrderDrawer(props: OrderDrawerProps<'payin'>) {
  const t = useT();
  // The UTR check and supplement forms are what a drawer is opened for: fetched now, a key opens them at once.
  useEffect(() => {
    void import('./UtrCheckDialog.tsx');
    void import('./SupplementDialog.tsx');
  }, []);
  return (
    <OrderDetail
      kind="payin"
      {...props}
      moving={moving}
      fields={(o) => [
        ...orderHead,
        'paidAmount',
        ...(o.refundedAmount !== '0.00' ? ['refundedAmount'] : []),
        'fee',
        ...(o.agentCommission !== '0.00' ? ['agentCommission'] : []),
        'utr',
        'payerUtr',
        'paidBy',
        'channelCode',
        'channelOrderId',
        'createdAt',
        'expiresAt',
        'paidAt',
        'callbackAt',
        'failureReason',
        'notifyUrl',
        'returnUrl',
        'payUrl',
      ]}
    >
      {(o) => (
        <>
          {o.status === payin.state.paid && (
            <Can needs={[endpoints.refund.ofOrder]}>
              <OrderRefunds payinId={o.id} />
            </Can>
          )}
          {o.status === payin.state.paid && (
            <Can needs={[endpoints.dispute.list]}>
              <OrderDisputes payinId={o.id} />
            </Can>
          )}
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
        </>
      )}
    </OrderDetail>
  );
}
