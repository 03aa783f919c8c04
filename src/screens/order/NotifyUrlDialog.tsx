import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { Field, FormActions, savedThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { OrderSummary } from './OrderSummary.tsx';
import type { Payin } from './parts.tsx';
import './order.css';

/** Corrects the callback address of an order that is not final yet; undelivered callbacks follow it. */
export default function NotifyUrlDialog({
  order,
  close,
}: {
  order: Payin & { notifyUrl?: string };
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ notifyUrl: order.notifyUrl ?? '' });

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const saved = savedThenClose(close);
    form.send(
      endpoints.merchantOrder.update,
      { id: order.id, notifyUrl: form.values.notifyUrl.trim() },
      saved,
    );
  };

  return (
    <Modal title={t('screens.order.notifyUrlTitle', { orderNo: order.orderNo })} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <OrderSummary order={order} />
        <Field
          label={t('screens.order.notifyUrl')}
          {...form.field('notifyUrl')}
          type="url"
          spellCheck={false}
          required
        />
        <FormActions busy={form.busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
