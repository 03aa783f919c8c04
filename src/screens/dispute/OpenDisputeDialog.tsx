import { useStore } from '@nanostores/react';
import type { Contexts } from '../../../commands/index.ts';
import { disputeKinds, merchantDisputeKinds } from '../../../contract/endpoints/dispute.ts';
import { endpoints, errno } from '../../../contract/index.ts';
import { formatMinor, toMinor } from '../../../contract/money.ts';
import { thousands } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';
import { $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { SelectField, valueOptions } from '../../ui/fields.tsx';
import { CodeAndActions, DecimalField, Field, ReasonField, RefusalNote, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { OrderSummary } from '../order/OrderSummary.tsx';
import { kindLabel } from './parts.tsx';

type Kind = (typeof disputeKinds)[number];

/** Said inside the dialog: the order moved on, or is not the user's to dispute. */
const refusals = [errno.conflict, errno.notFound, errno.forbidden];

/** How long a case is given by default: a week. */
const defaultDays = 7;

/** A `datetime-local` value (the viewer's clock) for `at`. */
function localInput(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/**
 * Opens a dispute of a paid pay-in (`D` on the order): its kind (a merchant's user opens a complaint or a
 * wrong payment only), the amount (what was paid less what was refunded, unless less is disputed), when the
 * answer is due (a week ahead unless the bank said otherwise) and why, confirmed with the Google code. The
 * amount is held from the merchant's wallets at once; the dialog closes with the case, whose drawer opens.
 */
export default function OpenDisputeDialog({
  order,
  close,
}: {
  order: Contexts['payin'];
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const user = useStore($user);
  const kinds: readonly Kind[] = user?.kind === 'merchant' ? merchantDisputeKinds : disputeKinds;
  const left = formatMinor(toMinor(order.paidAmount ?? '0') - toMinor(order.refundedAmount));
  const formRef = useOpeningFocus();
  const form = useForm({
    kind: kinds[0] as Kind,
    amount: left,
    deadline: localInput(new Date(Date.now() + defaultDays * 86_400_000)),
    reason: '',
    code: '',
  });
  const { values, set, errors } = form;
  const { unbound, refusal, call } = useCodeConfirmed(form, refusals);
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const due = new Date(values.deadline);
    // The field holds the viewer's clock; the server takes an instant.
    const deadline = values.deadline && !Number.isNaN(due.getTime()) ? due.toISOString() : '';
    const input = {
      payinId: order.id,
      kind: values.kind,
      amount: values.amount.trim(),
      deadline,
      reason: values.reason.trim(),
      code: values.code.trim(),
    };
    form.send(
      endpoints.dispute.open,
      input,
      (done) => {
        toast(
          'success',
          t('screens.dispute.openedDone', {
            disputeNo: done.disputeNo,
            held: thousands(done.held),
            currency: done.currency,
          }),
        );
        close(done);
      },
      { blankIsMissing: true, via: call },
    );
  };
  return (
    <Modal
      title={t('screens.dispute.openTitle', { orderNo: order.orderNo })}
      description={t('screens.dispute.openHint')}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <OrderSummary order={order} />
        {unbound && <UnboundNotice close={() => close()} />}
        <RefusalNote refusal={refusal} />
        <SelectField
          label={t('screens.dispute.kind')}
          value={values.kind}
          onValue={(v) => set('kind', v as Kind)}
          error={errors.kind}
          options={valueOptions(kinds, kindLabel)}
          hint={t(`screens.dispute.kindHints.${values.kind}`)}
        />
        <DecimalField
          label={t('screens.dispute.amount')}
          {...form.field('amount')}
          hint={t('screens.dispute.amountHint', { amount: thousands(left) })}
          required
        />
        <Field
          label={t('screens.dispute.deadline')}
          type="datetime-local"
          {...form.field('deadline')}
          hint={t('screens.dispute.deadlineHint')}
          required
        />
        <ReasonField label={t('screens.dispute.reason')} {...form.field('reason')} />
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={t('commands.dispute.open.title')}
          tone="danger"
        />
      </form>
    </Modal>
  );
}
