import { useQuery } from '@tanstack/react-query';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints, errno } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { FieldGroup } from '../../ui/fields.tsx';
import {
  CodeAndActions,
  DecimalField,
  Field,
  ReasonField,
  RefusalNote,
  toldThenClose,
  useForm,
  VerbatimField,
} from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { OrderSummary } from '../order/OrderSummary.tsx';

/** Said inside the dialog: the collection balance is short, or the order moved on. */
const refusals = [errno.insufficientBalance, errno.conflict, errno.forbidden];

/**
 * Refund part or all of a paid pay-in (`f` on the order): the amount (at most what is left of what was
 * paid), why, and where the money goes (the payer's account; an order refunded before offers its last
 * one, left blank), confirmed with the Google code. Above the maker–checker threshold the dialog closes
 * with word that a second person was asked.
 */
export default function RefundDialog({
  order,
  close,
}: {
  order: Contexts['payin'];
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({
    amount: '',
    reason: '',
    'payee.accountName': '',
    'payee.accountNumber': '',
    'payee.ifsc': '',
    code: '',
  });
  const { values, errors } = form;
  const { unbound, refusal, call } = useCodeConfirmed(form, refusals, () => close(true));
  const refunds = useQuery({
    queryKey: ['order-refunds', order.id],
    queryFn: ({ signal }) => api(endpoints.refund.ofOrder, { payinId: order.id }, { signal }),
  });
  const left = refunds.data?.refundable ?? null;
  const last = refunds.data?.list.at(-1);

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const payee = {
      accountName: values['payee.accountName'].trim(),
      accountNumber: values['payee.accountNumber'].trim(),
      ifsc: values['payee.ifsc'].trim().toUpperCase(),
    };
    const given = payee.accountName || payee.accountNumber || payee.ifsc;
    const input = {
      payinId: order.id,
      amount: values.amount.trim(),
      reason: values.reason.trim(),
      code: values.code.trim(),
      ...(given ? { payee } : {}),
    };
    const done = toldThenClose(close, (r: { refundNo: string; amount: string }) =>
      t('screens.refund.done', { refundNo: r.refundNo, amount: thousands(r.amount) }),
    );
    form.send(endpoints.refund.create, input, done, { blankIsMissing: true, via: call });
  };

  return (
    <Modal title={t('screens.refund.title', { orderNo: order.orderNo })} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <OrderSummary order={order} />
        {unbound && <UnboundNotice close={() => close()} />}
        <RefusalNote refusal={refusal} />
        <DecimalField
          label={t('screens.refund.amount')}
          {...form.field('amount')}
          hint={left === null ? undefined : t('screens.refund.amountHint', { amount: thousands(left) })}
          required
        />
        <ReasonField label={t('screens.refund.reason')} {...form.field('reason')} />
        <p className={errors.payee ? 'field-error' : 'muted'}>
          {errors.payee ??
            (last
              ? t('screens.refund.payeeLast', { account: `${last.accountName} · ${last.accountNumber}` })
              : t('screens.refund.payeeHint'))}
        </p>
        <FieldGroup title={t('screens.refund.payee')}>
          <Field label={t('screens.refund.accountName')} {...form.field('payee.accountName')} />
          <VerbatimField label={t('screens.refund.accountNumber')} {...form.field('payee.accountNumber')} />
          <VerbatimField label={t('screens.refund.ifsc')} {...form.field('payee.ifsc')} />
        </FieldGroup>
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={t('commands.refund.create.title')}
          tone="danger"
        />
      </form>
    </Modal>
  );
}
