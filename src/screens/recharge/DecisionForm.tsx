import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import type { ActionOf } from '../../../contract/machine.ts';
import type { recharge } from '../../../contract/machines.ts';
import { thousands } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, Field, missingFirst, useForm, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';

/** A platform user's decision on a recharge: each action of its state machine. */
type Decision = ActionOf<typeof recharge>;

/**
 * Confirms a pending recharge (its amount is credited to the merchant's payout balance) or rejects it
 * (nothing is credited; the merchant reads the reason). Either moves money or refuses to: a reason and
 * the user's Google code.
 */
export default function DecisionForm({
  recharge,
  decision,
  close,
}: {
  recharge: Contexts['recharge'];
  decision: Decision;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ reason: '', code: '' });
  const { unbound, call } = useCodeConfirmed(form);
  const endpoint = endpoints.merchantRechargeLog[decision];
  const title = t(`commands.merchantRechargeLog.${decision}.title`);
  const facts = {
    id: recharge.id,
    merchantCode: recharge.merchantCode,
    amount: thousands(recharge.amount),
    currency: recharge.currency,
    reference: recharge.reference,
  };

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = { id: recharge.id, reason: form.values.reason, code: form.values.code.trim() };
    const checked = validate(endpoint.input, input);
    if (!checked.ok) return form.setErrors(missingFirst(checked.errors, input));
    void form.submit(async () => {
      const done = await call(endpoint, input);
      if (!done) return;
      toast(
        'success',
        decision === 'confirm'
          ? t('screens.recharge.confirmed', { ...done, amount: thousands(done.amount) })
          : t('screens.recharge.rejected', { id: done.id }),
      );
      close(true);
    });
  };

  return (
    <Modal
      title={title}
      description={t(
        decision === 'confirm'
          ? 'commands.merchantRechargeLog.confirm.confirm'
          : 'screens.recharge.rejectText',
        facts,
      )}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {unbound && <UnboundNotice close={() => close()} />}
        <Field
          label={t('screens.recharge.reason')}
          value={form.values.reason}
          onValue={(v) => form.set('reason', v)}
          error={form.errors.reason}
          hint={t(
            decision === 'confirm'
              ? 'screens.recharge.confirmReasonHint'
              : 'screens.recharge.rejectReasonHint',
          )}
          maxLength={200}
          autoComplete="off"
          required
        />
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
