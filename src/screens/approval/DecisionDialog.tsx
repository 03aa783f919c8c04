import { endpoints, errno } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, Field, missingFirst, useForm, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
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
  const formRef = useOpeningFocus();
  const form = useForm({ reason: '', code: '' });
  const { unbound, refusal, call } = useCodeConfirmed(form, refusals);
  const title = t(`commands.approval.${decision}.title`);
  const facts = {
    action: t(`screens.approval.actions.${request.action}`),
    object: objectName(request),
    amount: thousands(request.amount),
    currency: request.currency,
    requestedBy: request.requestedBy,
  };

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const code = form.values.code.trim();
    void form.submit(async () => {
      if (decision === 'approve') {
        const input = { id: request.id, code };
        const checked = validate(endpoints.approval.approve.input, input);
        if (!checked.ok) return form.setErrors(missingFirst(checked.errors, input));
        if (!(await call(endpoints.approval.approve, input))) return;
        toast('success', t('screens.approval.approved', facts));
      } else {
        const input = { id: request.id, reason: form.values.reason, code };
        const checked = validate(endpoints.approval.reject.input, input);
        if (!checked.ok) return form.setErrors(missingFirst(checked.errors, input));
        if (!(await call(endpoints.approval.reject, input))) return;
        toast('success', t('screens.approval.rejected', facts));
      }
      close(true);
    });
  };

  return (
    <Modal
      title={title}
      description={t(
        decision === 'approve' ? 'screens.approval.approveText' : 'screens.approval.rejectText',
        facts,
      )}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {request.summary.length > 0 && (
          <p className="muted">{t('screens.approval.details', { details: summaryText(request) })}</p>
        )}
        {request.reason && (
          <p className="notice" role="note">
            {t('screens.approval.askedBecause', { requestedBy: request.requestedBy, reason: request.reason })}
          </p>
        )}
        {unbound && <UnboundNotice close={() => close()} />}
        {refusal && (
          <p className="danger-note" role="alert">
            {refusal}
          </p>
        )}
        {decision === 'reject' && (
          <Field
            label={t('screens.approval.rejectReason')}
            value={form.values.reason}
            onValue={(v) => form.set('reason', v)}
            error={form.errors.reason}
            maxLength={200}
            autoComplete="off"
            required
          />
        )}
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={title}
          tone={decision === 'reject' ? 'danger' : 'primary'}
        />
      </form>
    </Modal>
  );
}
