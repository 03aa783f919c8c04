import { endpoints, errno } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { FormActions, ReasonField, RefusalNote, toldThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import type { Dispute } from './parts.tsx';

/** Said inside the dialog: it was decided meanwhile, or was not the user's side's to withdraw. */
const refusals = [errno.conflict, errno.forbidden];

/** Withdraws an open case, by the side that opened it (or the platform), with a reason: the hold goes back. */
export default function WithdrawDialog({
  dispute,
  close,
}: {
  dispute: Dispute;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ reason: '' });
  // No code here: the hook is what says the action's refusals inside the dialog.
  const { refusal, call } = useCodeConfirmed(form, refusals);
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    form.send(
      endpoints.dispute.withdraw,
      { id: dispute.id, reason: form.values.reason.trim() },
      toldThenClose(close, (done) => t('screens.dispute.withdrawnDone', { disputeNo: done.disputeNo })),
      { blankIsMissing: true, via: call },
    );
  };
  return (
    <Modal
      title={t('commands.dispute.withdraw.title')}
      description={t('screens.dispute.withdrawText', {
        disputeNo: dispute.disputeNo,
        held: thousands(dispute.held),
        currency: dispute.currency,
      })}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <RefusalNote refusal={refusal} />
        <ReasonField label={t('screens.dispute.outcomeReason')} {...form.field('reason')} />
        <FormActions
          busy={form.busy}
          onCancel={() => close()}
          submitLabel={t('commands.dispute.withdraw.title')}
          tone="danger"
        />
      </form>
    </Modal>
  );
}
