import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { Field, missingFirst, useForm, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';

/** Rejects a pending recharge with the reason the merchant will read; nothing is credited. */
export default function RejectForm({
  recharge,
  close,
}: {
  recharge: Contexts['recharge'];
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const form = useForm({ reason: '' });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = { id: recharge.id, reason: form.values.reason };
    const checked = validate(endpoints.merchantRechargeLog.reject.input, input);
    if (!checked.ok) return form.setErrors(missingFirst(checked.errors, input));
    void form.submit(async () => {
      await api(endpoints.merchantRechargeLog.reject, input, { quiet: [422] });
      toast('success', t('screens.recharge.rejected', { id: recharge.id }));
      close(true);
    });
  };
  return (
    <Modal
      title={t('commands.merchantRechargeLog.reject.title')}
      description={t('screens.recharge.rejectText', {
        id: recharge.id,
        merchantCode: recharge.merchantCode,
        amount: thousands(recharge.amount),
        currency: recharge.currency,
        reference: recharge.reference,
      })}
      onClose={() => close()}
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <Field
          label={t('screens.recharge.reason')}
          value={form.values.reason}
          onValue={(v) => form.set('reason', v)}
          error={form.errors.reason}
          maxLength={300}
          autoComplete="off"
          autoFocus
          required
        />
        <div className="form-actions">
          <button type="button" className="button" onClick={() => close()}>
            {t('app.cancel')}
          </button>
          <button type="submit" className="button danger" disabled={form.busy}>
            {t('commands.merchantRechargeLog.reject.title')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
