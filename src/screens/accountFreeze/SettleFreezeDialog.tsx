import { endpoints, errno } from '../../../contract/index.ts';
import { formatMinor, toMinor } from '../../../contract/money.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import {
  CodeAndActions,
  DecimalField,
  ReasonField,
  RefusalNote,
  toldThenClose,
  useForm,
} from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import type { Freeze } from './parts.tsx';

/** Said inside the dialog: the recorder may not settle it, or it was settled meanwhile. */
const refusals = [errno.sameUser, errno.conflict];
const decimal = /^\d+(\.\d{1,2})?$/;

/**
 * Settles a freeze by the bank's letter: what it released (back to the merchants' wallets) and what it
 * wrote off (their holds spent), adding up to the frozen amount; typing one fills the other. A reason and
 * the Google code; never by the user who recorded it.
 */
export default function SettleFreezeDialog({
  freeze,
  close,
}: {
  freeze: Freeze;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ released: freeze.amount, writtenOff: '0.00', reason: '', code: '' });
  const { unbound, refusal, call } = useCodeConfirmed(form, refusals);
  const total = toMinor(freeze.amount);
  // The other part is what the frozen amount leaves, while the typed one is a plain amount within it.
  const rest = (typed: string) =>
    decimal.test(typed.trim()) && toMinor(typed.trim()) <= total
      ? formatMinor(total - toMinor(typed.trim()))
      : null;
  const typed = (key: 'released' | 'writtenOff', other: 'released' | 'writtenOff') => ({
    ...form.field(key),
    onValue: (v: string) => {
      form.set(key, v);
      const left = rest(v);
      if (left !== null) form.set(other, left);
    },
  });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const { values } = form;
    form.send(
      endpoints.accountFreeze.settle,
      {
        id: freeze.id,
        released: values.released.trim(),
        writtenOff: values.writtenOff.trim(),
        reason: values.reason.trim(),
        code: values.code.trim(),
      },
      toldThenClose(close, (done) =>
        t('screens.accountFreeze.settledToast', {
          released: thousands(done.released ?? '0'),
          writtenOff: thousands(done.writtenOff ?? '0'),
        }),
      ),
      { blankIsMissing: true, via: call },
    );
  };
  return (
    <Modal
      title={t('commands.accountFreeze.settle.title')}
      description={t('screens.accountFreeze.settleHint', {
        account: freeze.accountLabel,
        amount: thousands(freeze.amount),
        currency: freeze.currency,
      })}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {unbound && <UnboundNotice close={() => close()} />}
        <RefusalNote refusal={refusal} />
        <DecimalField
          label={t('screens.accountFreeze.released')}
          {...typed('released', 'writtenOff')}
          required
        />
        <DecimalField
          label={t('screens.accountFreeze.writtenOff')}
          {...typed('writtenOff', 'released')}
          hint={t('screens.accountFreeze.writtenOffHint')}
          required
        />
        <ReasonField label={t('screens.accountFreeze.reason')} {...form.field('reason')} />
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={t('commands.accountFreeze.settle.title')}
          tone="danger"
        />
      </form>
    </Modal>
  );
}
