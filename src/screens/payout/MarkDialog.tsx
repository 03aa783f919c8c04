import { endpoints } from '../../../contract/index.ts';
import type { PayoutAction } from '../../../contract/machines.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, ReasonField, toldThenClose, useForm, VerbatimField } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { OrderSummary } from '../order/OrderSummary.tsx';
import type { Payout } from '../order/parts.tsx';
import '../order/order.css';

/** The hand actions on a payout: each moves money, so each takes a reason and the user's Google code. */
export type PayoutHandAction = Extract<PayoutAction, 'markSuccess' | 'markFailed' | 'retry'>;

interface Props {
  payout: Payout;
  action: PayoutHandAction;
  close: (result?: unknown) => void;
}

const notes: Record<PayoutHandAction, { key: string; className: string }> = {
  markSuccess: { key: 'screens.payout.mark.successNote', className: 'notice' },
  markFailed: { key: 'screens.payout.mark.failedNote', className: 'danger-note' },
  retry: { key: 'commands.merchantPayout.retry.confirm', className: 'notice' },
};
const done: Record<PayoutHandAction, string> = {
  markSuccess: 'screens.payout.mark.doneSuccess',
  markFailed: 'screens.payout.mark.doneFailed',
  retry: 'screens.payout.retried',
};

/**
 * Marks a payout paid (optionally with the bank's UTR) or failed by hand, or sends a failed one again:
 * with the reason kept on the order and in the operation log, confirmed by the user's Google code.
 */
export default function MarkDialog({ payout, action, close }: Props) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ reason: '', utr: '', code: '' });
  // Above the maker–checker threshold a mark of success is sent for a second person's approval.
  const { unbound, call } = useCodeConfirmed(form, [], () => close(true));
  const title = t(`commands.merchantPayout.${action}.title`);

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const { reason, utr, code } = form.values;
    const input = {
      id: payout.id,
      reason,
      code: code.trim(),
      ...(action === 'markSuccess' && utr.trim() ? { utr: utr.trim() } : {}),
    };
    const marked = toldThenClose(close, () => t(done[action], { orderNo: payout.orderNo }));
    form.send(endpoints.merchantPayout[action], input, marked, { blankIsMissing: true, via: call });
  };

  return (
    <Modal title={title} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <p className={notes[action].className} role="note">
          {t(notes[action].key, { orderNo: payout.orderNo, amount: thousands(payout.amount) })}
        </p>
        <OrderSummary order={payout} kind="payout" />
        {unbound && <UnboundNotice close={() => close()} />}
        <ReasonField
          label={t('screens.payout.mark.reason')}
          {...form.field('reason')}
          hint={t('screens.payout.mark.reasonHint')}
        />
        {action === 'markSuccess' && (
          <VerbatimField label={t('screens.payout.mark.utr')} {...form.field('utr')} />
        )}
        <CodeAndActions
          endpoint={endpoints.merchantPayout[action]}
          form={form}
          onCancel={() => close()}
          submitLabel={title}
          tone={action === 'markFailed' ? 'danger' : 'primary'}
        />
      </form>
    </Modal>
  );
}
