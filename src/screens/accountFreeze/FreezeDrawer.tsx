import { endpoints } from '../../../contract/index.ts';
import { formatTime } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { DetailDrawer, DetailFields, DetailSection } from '../../ui/DetailDrawer.tsx';
import { MerchantCell } from '../../ui/MerchantCell.tsx';
import { money } from '../order/parts.tsx';
import { byAt, pendingDrawer, useInfoRecord } from '../recordDrawer.tsx';
import { type Freeze, FreezeStatus } from './parts.tsx';
import '../order/order.css';

/**
 * A freeze in full: the account, the bank's reference and letter, who recorded and settled it, and whose
 * money it holds: each merchant's share of the frozen amount, what was held from its wallets, what they
 * could not cover and, once settled, what was released and written off. The settle action is the
 * drawer's button and key.
 */
export function FreezeDrawer({
  id,
  onClose,
  onShown,
}: {
  id: number;
  onClose: () => void;
  onShown?: (freeze: Freeze | null) => void;
}) {
  const t = useT();
  const { record: f, missing } = useInfoRecord(
    'account-freeze-info',
    endpoints.accountFreeze.info,
    id,
    onShown,
  );
  if (!f) {
    return pendingDrawer({
      title: t('screens.accountFreeze.title', { id }),
      missing,
      notFound: t('screens.accountFreeze.notFound', { id }),
      onClose,
    });
  }
  const cur = (v: string | null) => (v === null ? '—' : `${money(v)} ${f.currency}`);
  return (
    <DetailDrawer
      title={`${f.accountLabel} · ${f.reference}`}
      subtitle={
        <>
          <FreezeStatus status={f.status} />
          <span className="drawer-amount">{cur(f.amount)}</span>
        </>
      }
      onClose={onClose}
      context="accountFreeze"
      target={f}
    >
      <DetailFields
        items={[
          { label: t('screens.accountFreeze.account'), value: f.accountLabel },
          { label: t('screens.accountFreeze.reference'), value: f.reference, mono: true },
          { label: t('screens.accountFreeze.frozenAt'), value: formatTime(f.frozenAt) },
          { label: t('screens.accountFreeze.held'), value: cur(f.held) },
          { label: t('screens.accountFreeze.unheld'), value: cur(f.unheld) },
          { label: t('screens.accountFreeze.unattributed'), value: cur(f.unattributed) },
          { label: t('screens.accountFreeze.note'), value: f.note || '—' },
          { label: t('screens.accountFreeze.recorded'), value: byAt(f.recordedBy, f.createdAt) },
          { label: t('screens.accountFreeze.released'), value: cur(f.released) },
          { label: t('screens.accountFreeze.writtenOff'), value: cur(f.writtenOff) },
          { label: t('screens.accountFreeze.settled'), value: byAt(f.settledBy, f.settledAt) },
          { label: t('screens.accountFreeze.settleReason'), value: f.settleReason ?? '—' },
        ]}
      />
      <DetailSection title={t('screens.accountFreeze.linesTitle')}>
        {f.lines.length === 0 ? (
          <p className="muted">{t('screens.accountFreeze.noLines')}</p>
        ) : (
          <div className="mini-table-wrap">
            <table className="mini-table">
              <thead>
                <tr>
                  <th>{t('screens.accountFreeze.merchant')}</th>
                  <th className="num">{t('screens.accountFreeze.orders')}</th>
                  <th className="num">{t('screens.accountFreeze.share')}</th>
                  <th className="num">{t('screens.accountFreeze.held')}</th>
                  <th className="num">{t('screens.accountFreeze.unheld')}</th>
                  {f.status === 'settled' && (
                    <>
                      <th className="num">{t('screens.accountFreeze.released')}</th>
                      <th className="num">{t('screens.accountFreeze.writtenOff')}</th>
                    </>
                  )}
                </tr>
              </thead>
              <tbody>
                {f.lines.map((l) => (
                  <tr key={l.id}>
                    <td>
                      <MerchantCell code={l.merchantCode} name={l.merchantName} />
                    </td>
                    <td className="num">{l.orderCount}</td>
                    <td className="num">{money(l.amount)}</td>
                    <td
                      className="num"
                      title={t('screens.accountFreeze.heldFrom', {
                        collection: money(l.heldCollectionAvailable),
                        payout: money(l.heldPayoutAvailable),
                      })}
                    >
                      {money(l.held)}
                    </td>
                    <td className="num">{money(l.unheld)}</td>
                    {f.status === 'settled' && (
                      <>
                        <td className="num">{l.released === null ? '—' : money(l.released)}</td>
                        <td className="num">{l.writtenOff === null ? '—' : money(l.writtenOff)}</td>
                      </>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </DetailSection>
    </DetailDrawer>
  );
}
