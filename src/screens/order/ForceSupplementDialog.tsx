import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import {
  DecimalField,
  Field,
  FormActions,
  GoogleCodeField,
  toldThenClose,
  useForm,
  VerbatimField,
} from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { OrderSummary } from './OrderSummary.tsx';
import { money, type Payin } from './parts.tsx';
import './order.css';

interface Props {
  order: Payin;
  close: (result?: unknown) => void;
}

/**
 * Forced supplement: the order is paid without a UTR match, on the operator's word: a reason, the
 * amount actually paid (the order's amount unless told otherwise), an optional unused UTR, and the
 * operator's Google code. Above the maker–checker threshold it is sent for a second person's approval.
 */
export default function ForceSupplementDialog({ order, close }: Props) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ reason: '', utr: '', paidAmount: '', code: '' });
  const { values, set, errors } = form;
  const { unbound, call } = useCodeConfirmed(form, [], () => close(true));

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      id: order.id,
      reason: values.reason,
      code: values.code.trim(),
      ...(values.utr.trim() ? { utr: values.utr.trim() } : {}),
      ...(values.paidAmount.trim() ? { paidAmount: values.paidAmount.trim() } : {}),
    };
    const paid = toldThenClose(close, (done: { orderNo: string }) =>
      t('screens.order.supplement.done', { orderNo: done.orderNo }),
    );
    form.send(endpoints.merchantOrder.forceSupplement, input, paid, { via: call });
  };

  return (
    <Modal title={t('screens.order.force.title', { orderNo: order.orderNo })} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <p className="danger-note" role="note">
          {t('screens.order.force.warning')}
        </p>
        <OrderSummary order={order} />
        {unbound && <UnboundNotice close={() => close()} />}
        <Field label={t('screens.order.force.reason')} {...form.field('reason')} required />
        <DecimalField
          label={t('screens.order.paidAmount')}
          {...form.field('paidAmount')}
          hint={t('screens.order.force.amountHint', { amount: money(order.amount) })}
        />
        <VerbatimField label={t('screens.order.force.utr')} {...form.field('utr')} />
        <GoogleCodeField
          endpoint={endpoints.merchantOrder.forceSupplement}
          value={values.code}
          onValue={(v) => set('code', v)}
          error={errors.code}
        />
        <FormActions
          busy={form.busy}
          onCancel={() => close()}
          submitLabel={t('commands.merchantOrder.forceSupplement.title')}
          tone="danger"
        />
      </form>
    </Modal>
  );
}
