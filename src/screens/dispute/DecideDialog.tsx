import { endpoints, errno } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { DecisionDialog } from '../../ui/DecisionDialog.tsx';
import { FieldGroup } from '../../ui/fields.tsx';
import { Field, ReasonField, VerbatimField } from '../../ui/form.tsx';
import { type Dispute, kindLabel } from './parts.tsx';

/** Said inside the dialog: the opener may not decide, or it was decided meanwhile. */
const refusals = [errno.sameUser, errno.conflict, errno.notFound];

const payeeKeys = ['payee.accountName', 'payee.accountNumber', 'payee.ifsc'] as const;

/**
 * Decides an open case, by a platform user who did not open it, with a reason and the Google code. Won
 * releases the hold to the merchant's wallets. Lost spends it: a chargeback to channel clearing, a complaint
 * or wrong payment back to the payer by a refund, which needs the payer's account when the order has no
 * earlier refund to take it from (the server then refuses `payee`, said above the account's fields).
 */
export default function DecideDialog({
  dispute,
  outcome,
  close,
}: {
  dispute: Dispute;
  outcome: 'won' | 'lost';
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const refunds = outcome === 'lost' && dispute.kind !== 'chargeback';
  const command = outcome === 'won' ? 'dispute.win' : 'dispute.lose';
  const facts = {
    disputeNo: dispute.disputeNo,
    kind: kindLabel(dispute.kind),
    amount: thousands(dispute.amount),
    held: thousands(dispute.held),
    currency: dispute.currency,
  };
  const note = outcome === 'won' ? 'wonText' : refunds ? 'lostRefundText' : 'lostText';
  return (
    <DecisionDialog
      endpoint={endpoints.dispute.decide}
      title={t(`commands.${command}.title`)}
      description={t(`screens.dispute.${note}`, facts)}
      tone={outcome === 'won' ? 'primary' : 'danger'}
      refusals={refusals}
      more={{ 'payee.accountName': '', 'payee.accountNumber': '', 'payee.ifsc': '' }}
      fields={(form) => (
        <>
          <ReasonField label={t('screens.dispute.outcomeReason')} {...form.field('reason')} />
          {refunds && (
            <>
              <p
                className={form.errors.payee ? 'field-error' : 'muted'}
                role={form.errors.payee ? 'alert' : undefined}
              >
                {form.errors.payee ?? t('screens.dispute.payeeHint')}
              </p>
              <FieldGroup title={t('screens.refund.payee')}>
                <Field label={t('screens.refund.accountName')} {...form.field(payeeKeys[0])} />
                <VerbatimField label={t('screens.refund.accountNumber')} {...form.field(payeeKeys[1])} />
                <VerbatimField label={t('screens.refund.ifsc')} {...form.field(payeeKeys[2])} />
              </FieldGroup>
            </>
          )}
        </>
      )}
      input={(v) => {
        const payee = {
          accountName: v['payee.accountName'].trim(),
          accountNumber: v['payee.accountNumber'].trim(),
          ifsc: v['payee.ifsc'].trim().toUpperCase(),
        };
        const given = refunds && (payee.accountName || payee.accountNumber || payee.ifsc);
        return {
          id: dispute.id,
          outcome,
          reason: v.reason.trim(),
          code: v.code,
          ...(given ? { payee } : {}),
        };
      }}
      done={(done) =>
        t(outcome === 'won' ? 'screens.dispute.wonDone' : 'screens.dispute.lostDone', {
          disputeNo: done.disputeNo,
          refundNo: done.refundNo ?? '',
        })
      }
      close={close}
    />
  );
}
