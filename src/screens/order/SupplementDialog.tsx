import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { DecimalField, FormActions, toldThenClose, useForm, VerbatimField } from '../../ui/form.tsx';
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
  const { values } = form;

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      id: order.id,
      utr: values.utr,
      ...(values.paidAmount.trim() ? { paidAmount: values.paidAmount.trim() } : {}),
    };
    const paid = toldThenClose(close, (done: { orderNo: string }) =>
      t('screens.order.supplement.done', { orderNo: done.orderNo }),
    );
    form.send(endpoints.merchantOrder.supplement, input, paid);
  };

  return (
    <Modal title={t('screens.order.supplement.title', { orderNo: order.orderNo })} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <OrderSummary order={order} />
        <VerbatimField label={t('screens.order.utr')} {...form.field('utr')} required />
        <DecimalField
          label={t('screens.order.paidAmount')}
          {...form.field('paidAmount')}
          hint={t('screens.order.supplement.amountHint')}
        />
        <FormActions
          busy={form.busy}
          onCancel={() => close()}
          submitLabel={t('commands.merchantOrder.supplement.title')}
        />
      </form>
    </Modal>
  );
}
