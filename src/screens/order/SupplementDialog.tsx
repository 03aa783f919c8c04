import { endpoints, errno } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { Field, useForm, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { OrderSummary } from './OrderSummary.tsx';
import type { Payin } from './parts.tsx';
import './order.css';

interface Props {
  order: Payin;
  /** Prefilled from a successful UTR check. */
  utr?: string;
  paidAmount?: string;
  close: (result?: unknown) => void;
}

/**
 * Supplement: a pending, unpaid or failed order becomes paid with a UTR that a check at its channel
 * confirms and no order used; the paid amount, when given, must be the amount found.
 */
export default function SupplementDialog({ order, utr = '', paidAmount = '', close }: Props) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ utr, paidAmount });
  const { values, set, errors } = form;

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    void form.submit(async () => {
      const input = {
        id: order.id,
        utr: values.utr,
        ...(values.paidAmount.trim() ? { paidAmount: values.paidAmount.trim() } : {}),
      };
      const valid = validate(endpoints.merchantOrder.supplement.input, input);
      if (!valid.ok) return form.setErrors(valid.errors);
      const paid = await api(endpoints.merchantOrder.supplement, input, { quiet: [errno.invalid] });
      toast('success', t('screens.order.supplement.done', { orderNo: paid.orderNo }));
      close(true);
    });
  };

  return (
    <Modal title={t('screens.order.supplement.title', { orderNo: order.orderNo })} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <OrderSummary order={order} />
        <Field
          label={t('screens.order.utr')}
          value={values.utr}
          onValue={(v) => set('utr', v)}
          error={errors.utr}
          autoComplete="off"
          spellCheck={false}
          required
        />
        <Field
          label={t('screens.order.paidAmount')}
          value={values.paidAmount}
          onValue={(v) => set('paidAmount', v)}
          error={errors.paidAmount}
          hint={t('screens.order.supplement.amountHint')}
          inputMode="decimal"
          autoComplete="off"
        />
        <div className="form-actions">
          <button type="button" className="button" onClick={() => close()}>
            {t('app.cancel')}
          </button>
          <button type="submit" className="button primary" disabled={form.busy}>
            {t('commands.merchantOrder.supplement.title')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
