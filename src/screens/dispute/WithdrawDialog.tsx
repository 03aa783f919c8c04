import { endpoints, errno } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { DecisionDialog } from '../../ui/DecisionDialog.tsx';
import { ReasonField } from '../../ui/form.tsx';
import type { Dispute } from './parts.tsx';

/** Said inside the dialog: it was decided meanwhile, or was not the user's side's to withdraw. */
const refusals = [errno.conflict, errno.forbidden];

/**
 * Withdraws an open case, by the side that opened it (or the platform), with a reason and the Google code
 * of the user, merchant or platform (the door `dispute.withdraw`): the hold goes back.
 */
export default function WithdrawDialog({
  dispute,
  close,
}: {
  dispute: Dispute;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  return (
    <DecisionDialog
      endpoint={endpoints.dispute.withdraw}
      title={t('commands.dispute.withdraw.title')}
      description={t('screens.dispute.withdrawText', {
        disputeNo: dispute.disputeNo,
        held: thousands(dispute.held),
        currency: dispute.currency,
      })}
      tone="danger"
      refusals={refusals}
      fields={(form) => <ReasonField label={t('screens.dispute.withdrawReason')} {...form.field('reason')} />}
      input={(v) => ({ id: dispute.id, reason: v.reason.trim(), code: v.code })}
      done={(done) => t('screens.dispute.withdrawnDone', { disputeNo: done.disputeNo })}
      close={close}
    />
  );
}
