import { useStore } from '@nanostores/react';
import { allows, endpoints } from '../../../contract/index.ts';
import { slipLine } from '../../../contract/machines.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { runContext } from '../../shell/runtime.ts';
import { DetailDrawer, DetailFields, DetailSection } from '../../ui/DetailDrawer.tsx';
import { Icon } from '../../ui/Icon.tsx';
import { money } from '../order/parts.tsx';
import { byAt, pendingDrawer, useInfoRecord } from '../recordDrawer.tsx';
import { formatName, LineStatus, objectName, type Slip, type SlipLine, SlipStatus } from './parts.tsx';
import '../order/order.css';
import './slip.css';

const withdrawDialog = () => import('./WithdrawDialog.tsx');
const dropDialog = () => import('./DropDialog.tsx');

/**
 * A slip in full: its file, who wrote and closed it, and its lines in file order. The slip's actions
 * (mark withdrawn, drop a line, void, download) are the drawer's buttons and keys; a waiting line has
 * its own buttons, which open the same dialogs on that line.
 */
export function SlipDrawer({
  id,
  onClose,
  onShown,
}: {
  id: number;
  onClose: () => void;
  /** The slip on screen (null while none): the palette's row actions act on it. */
  onShown?: (slip: Slip | null) => void;
}) {
  const t = useT();
  const grants = useStore($grants);
  const { record: s, missing } = useInfoRecord('slip-info', endpoints.withdrawalSlip.info, id, onShown);
  if (!s) {
    return pendingDrawer({
      title: t('screens.slip.title', { id }),
      missing,
      notFound: t('screens.slip.notFound', { id }),
      onClose,
    });
  }

  const canWithdraw = (l: SlipLine) =>
    slipLine.can('withdraw', l.status) && allows(grants, [endpoints.withdrawalSlip.withdraw]);
  const canDrop = (l: SlipLine) =>
    slipLine.can('drop', l.status) && allows(grants, [endpoints.withdrawalSlip.drop]);
  const onLine = async (line: SlipLine, decision: 'withdraw' | 'drop') => {
    const c = runContext();
    const done =
      decision === 'withdraw'
        ? await c.dialog(withdrawDialog, { slip: s, lineId: line.id })
        : await c.dialog(dropDialog, { slip: s, decision: 'drop' as const, lineId: line.id });
    if (done) c.refresh();
  };

  return (
    <DetailDrawer
      title={s.slipNo}
      subtitle={
        <>
          <SlipStatus status={s.status} />
          <span className="drawer-amount">
            {money(s.total)} {s.currency}
          </span>
        </>
      }
      onClose={onClose}
      context="slip"
      target={s}
    >
      <DetailFields
        items={[
          { label: t('screens.slip.slipNo'), value: s.slipNo, mono: true },
          { label: t('screens.slip.format'), value: formatName(s.format) },
          { label: t('screens.slip.fileName'), value: s.fileName, mono: true },
          { label: t('screens.slip.paidFrom'), value: s.accountLabel ?? '—' },
          {
            label: t('screens.slip.lines'),
            value: t('screens.slip.lineSummary', {
              total: s.lineCount,
              waiting: s.lineCounts.toBeWithdrawn,
              withdrawn: s.lineCounts.withdrawn,
              dropped: s.lineCounts.defunct,
            }),
          },
          { label: t('screens.slip.created'), value: byAt(s.createdBy, s.createdAt) },
          { label: t('screens.slip.decided'), value: byAt(s.decidedBy, s.decidedAt) },
        ]}
      />
      <DetailSection title={t('screens.slip.linesTitle')}>
        <div className="mini-table-wrap">
          <table className="mini-table slip-lines">
            <thead>
              <tr>
                <th className="num">#</th>
                <th>{t('screens.slip.object')}</th>
                <th>{t('screens.slip.beneficiary')}</th>
                <th className="num">{t('screens.slip.amount')}</th>
                <th>{t('screens.slip.status')}</th>
              </tr>
            </thead>
            <tbody>
              {s.lines.map((l) => (
                <tr key={l.id}>
                  <td className="num">{l.lineNo}</td>
                  <td>
                    <div className="mono">{objectName(l)}</div>
                    <div className="muted">{l.merchantCode}</div>
                  </td>
                  <td>
                    <div>{l.beneficiaryName}</div>
                    <div className="muted mono">
                      {l.accountNumber} · {l.ifsc}
                    </div>
                  </td>
                  <td className="num">{money(l.amount)}</td>
                  <td className="slip-line-state">
                    <LineStatus status={l.status} />
                    {l.reference && <div className="mono">{l.reference}</div>}
                    {l.decidedAt && <div className="muted">{byAt(l.decidedBy, l.decidedAt)}</div>}
                    {(canWithdraw(l) || canDrop(l)) && (
                      <div className="slip-line-actions">
                        {canWithdraw(l) && (
                          <button type="button" className="button" onClick={() => void onLine(l, 'withdraw')}>
                            <Icon name="check" />
                            {t('screens.slip.lineWithdraw')}
                          </button>
                        )}
                        {canDrop(l) && (
                          <button
                            type="button"
                            className="button danger-outline"
                            onClick={() => void onLine(l, 'drop')}
                          >
                            <Icon name="close" />
                            {t('screens.slip.lineDrop')}
                          </button>
                        )}
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </DetailSection>
    </DetailDrawer>
  );
}
