import { endpoints, errno } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { Field, useForm, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { OrderSummary } from '../order/OrderSummary.tsx';
import type { Payout } from '../order/parts.tsx';
import '../order/order.css';

interface Props {
  payout: Payout;
  result: 'success' | 'failed';
  close: (result?: unknown) => void;
}

/** Marks a processing payout as paid (optionally with the bank's UTR) or failed, by hand, with a reason. */
export default function MarkDialog({ payout, result, close }: Props) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ reason: '', utr: '' });
  const success = result === 'success';

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    void form.submit(async () => {
      const base = { id: payout.id, reason: form.values.reason };
      if (success) {
        const input = { ...base, ...(form.values.utr.trim() ? { utr: form.values.utr.trim() } : {}) };
        const valid = validate(endpoints.merchantPayout.markSuccess.input, input);
        if (!valid.ok) return form.setErrors(valid.errors);
        await api(endpoints.merchantPayout.markSuccess, input, { quiet: [errno.invalid] });
      } else {
        const valid = validate(endpoints.merchantPayout.markFailed.input, base);
        if (!valid.ok) return form.setErrors(valid.errors);
        await api(endpoints.merchantPayout.markFailed, base, { quiet: [errno.invalid] });
      }
      toast(
        'success',
        t(success ? 'screens.payout.mark.doneSuccess' : 'screens.payout.mark.doneFailed', {
          orderNo: payout.orderNo,
        }),
      );
      close(true);
    });
  };

  return (
    <Modal
      title={t(
        success ? 'commands.merchantPayout.markSuccess.title' : 'commands.merchantPayout.markFailed.title',
      )}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <p className={success ? 'notice' : 'danger-note'} role="note">
          {t(success ? 'screens.payout.mark.successNote' : 'screens.payout.mark.failedNote')}
        </p>
        <OrderSummary order={payout} kind="payout" />
        <Field
          label={t('screens.payout.mark.reason')}
          value={form.values.reason}
          onValue={(v) => form.set('reason', v)}
          error={form.errors.reason}
          required
        />
        {success && (
          <Field
            label={t('screens.payout.mark.utr')}
            value={form.values.utr}
            onValue={(v) => form.set('utr', v)}
            error={form.errors.utr}
            autoComplete="off"
            spellCheck={false}
          />
        )}
        <div className="form-actions">
          <button type="button" className="button" onClick={() => close()}>
            {t('app.cancel')}
          </button>
          <button type="submit" className={`button ${success ? 'primary' : 'danger'}`} disabled={form.busy}>
            {t(
              success
                ? 'commands.merchantPayout.markSuccess.title'
                : 'commands.merchantPayout.markFailed.title',
            )}
          </button>
        </div>
      </form>
    </Modal>
  );
}
