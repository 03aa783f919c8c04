import { endpoints, errno } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { DecisionDialog as Decide } from '../../ui/DecisionDialog.tsx';
import { objectName, type Request, summaryText } from './parts.ts';

/**
 * Refusals said inside the dialog: the user asked for it themselves (a second person must decide), or
 * it was decided, or its object moved on, meanwhile; or the action itself refuses now (a UTR taken).
 */
const refusals = [
  errno.sameUser,
  errno.conflict,
  errno.notFound,
  errno.utrUsed,
  errno.insufficientBalance,
  errno.onSlip,
];

/**
 * A second platform user's decision on a maker–checker request: approving runs the action in their
 * name (the Google code confirms it), rejecting runs nothing and keeps the reason.
 */
export default function DecisionDialog({
  request,
  decision,
  close,
}: {
  request: Request;
  decision: 'approve' | 'reject';
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const facts = {
    action: t(`screens.approval.actions.${request.action}`),
    object: objectName(request),
    amount: thousands(request.amount),
    currency: request.currency,
    requestedBy: request.requestedBy,
  };
  const approving = decision === 'approve';
  return (
    <Decide
      endpoint={approving ? endpoints.approval.approve : endpoints.approval.reject}
      title={t(`commands.approval.${decision}.title`)}
      description={t(approving ? 'screens.approval.approveText' : 'screens.approval.rejectText', facts)}
      tone={approving ? 'primary' : 'danger'}
      {...(approving ? {} : { reason: { label: t('screens.approval.rejectReason') } })}
      refusals={refusals}
      input={({ reason, code }) => (approving ? { id: request.id, code } : { id: request.id, reason, code })}
      done={() => t(approving ? 'screens.approval.approved' : 'screens.approval.rejected', facts)}
      close={close}
    >
      {request.summary.length > 0 && (
        <p className="muted">{t('screens.approval.details', { details: summaryText(request) })}</p>
      )}
      {request.reason && (
        <p className="notice" role="note">
          {t('screens.approval.askedBecause', { requestedBy: request.requestedBy, reason: request.reason })}
        </p>
      )}
    </Decide>
  );
}
