import { Link } from 'wouter';
import { endpoints } from '../../../contract/index.ts';
import { dispute } from '../../../contract/machines.ts';
import { useT } from '../../lib/useT.ts';
import { DetailDrawer, DetailFields } from '../../ui/DetailDrawer.tsx';
import { money } from '../order/parts.tsx';
import { byAt, pendingDrawer, useInfoRecord } from '../recordDrawer.tsx';
import { EvidenceList } from './EvidenceList.tsx';
import { Deadline, type DisputeInfo, DisputeStatus, kindLabel } from './parts.tsx';
import '../order/order.css';
import './dispute.css';

/**
 * A dispute in full: its order, kind and amount, what was held from each of the merchant's wallets and
 * what they could not cover, the deadline, the owner, who opened it and why, the outcome (and for a lost
 * complaint or wrong payment the refund that paid the payer back), and the evidence. Its actions are the
 * drawer's buttons and keys.
 */
export function DisputeDrawer({
  id,
  onClose,
  onShown,
}: {
  id: number;
  onClose: () => void;
  onShown?: (dispute: DisputeInfo | null) => void;
}) {
  const t = useT();
  const { record: d, missing } = useInfoRecord('dispute-info', endpoints.dispute.info, id, onShown);
  if (!d) {
    return pendingDrawer({
      title: t('screens.dispute.title', { id }),
      missing,
      notFound: t('screens.dispute.notFound', { id }),
      onClose,
    });
  }
  const cur = (v: string) => `${money(v)} ${d.currency}`;
  const side = (s: DisputeInfo['openedSide']) => t(`screens.dispute.sides.${s}`);
  return (
    <DetailDrawer
      title={d.disputeNo}
      subtitle={
        <>
          <DisputeStatus status={d.status} />
          <span className="drawer-amount">{cur(d.amount)}</span>
        </>
      }
      onClose={onClose}
      context="dispute"
      target={d}
    >
      <DetailFields
        items={[
          { label: t('screens.dispute.orderNo'), value: d.orderNo, mono: true },
          { label: t('screens.dispute.merchantOrderNo'), value: d.merchantOrderNo, mono: true },
          { label: t('screens.dispute.merchantCode'), value: d.merchantCode },
          { label: t('screens.dispute.kind'), value: kindLabel(d.kind) },
          { label: t('screens.dispute.amount'), value: cur(d.amount) },
          { label: t('screens.dispute.held'), value: cur(d.held) },
          { label: t('screens.dispute.heldCollection'), value: cur(d.heldCollectionAvailable) },
          { label: t('screens.dispute.heldPayout'), value: cur(d.heldPayoutAvailable) },
          { label: t('screens.dispute.unheld'), value: cur(d.unheld) },
          { label: t('screens.dispute.deadline'), value: <Deadline row={d} /> },
          { label: t('screens.dispute.owner'), value: d.owner },
          {
            label: t('screens.dispute.opened'),
            value: `${side(d.openedSide)} · ${byAt(d.openedBy, d.createdAt)}`,
          },
          { label: t('screens.dispute.reason'), value: d.reason },
          // Decided or withdrawn: by whom and why, and for a lost complaint the refund that paid the payer.
          ...(dispute.is('open', d.status)
            ? []
            : [
                { label: t('screens.dispute.decided'), value: byAt(d.decidedBy, d.decidedAt) },
                { label: t('screens.dispute.outcomeReason'), value: d.outcomeReason },
              ]),
          ...(d.refundNo
            ? [
                {
                  label: t('screens.dispute.refund'),
                  value: (
                    <Link
                      className="link mono"
                      href={`/order?range=60d&order=${encodeURIComponent(d.orderNo)}`}
                    >
                      {d.refundNo}
                    </Link>
                  ),
                },
              ]
            : []),
        ]}
      />
      <EvidenceList dispute={d} />
    </DetailDrawer>
  );
}
