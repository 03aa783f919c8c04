import { useQuery } from '@tanstack/react-query';
import { endpoints, errno } from '../../../contract/index.ts';
import { toMinor } from '../../../contract/money.ts';
import { api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { SelectField } from '../../ui/fields.tsx';
import {
  CodeAndActions,
  DecimalField,
  NoteField,
  RefusalNote,
  toldThenClose,
  useForm,
  VerbatimField,
} from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { Spinner } from '../../ui/Spinner.tsx';

/** Said inside the dialog: more than is payable, a reference used before, a payment already waiting. */
const refusals = [errno.insufficientBalance, errno.referenceTaken, errno.approvalPending, errno.notFound];

/**
 * Commission paid out to an agent: the currency and amount (at most what is payable, shown), the bank
 * transfer's reference and a note, confirmed with the Google code. Above the maker–checker threshold it
 * waits for a second person.
 */
export default function PayCommissionDialog({
  agentId,
  close,
}: {
  agentId: number;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  // The payable balance now: the statement of today is the cheapest answer that carries it.
  const statement = useQuery({
    queryKey: ['agent-commission-payable', agentId],
    queryFn: ({ signal }) => api(endpoints.agentCommission.statement, { agentId }, { signal }),
  });
  const formRef = useOpeningFocus(undefined, !statement.isPending);
  const payable = statement.data?.payable ?? [];
  const form = useForm({ currency: '', amount: '', reference: '', note: '', code: '' });
  const { values, set } = form;
  const currency = values.currency || payable[0]?.currency || 'INR';
  const owed = payable.find((p) => p.currency === currency)?.balance ?? '0.00';
  const { unbound, refusal, call } = useCodeConfirmed(form, refusals, () => close(true));

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      agentId,
      currency,
      amount: values.amount.trim(),
      reference: values.reference.trim(),
      ...(values.note.trim() ? { note: values.note.trim() } : {}),
      code: values.code.trim(),
    };
    const paid = toldThenClose(close, (done: { amount: string; reference: string }) =>
      t('screens.commission.paid', { amount: thousands(done.amount), reference: done.reference }),
    );
    form.send(endpoints.agentCommission.pay, input, paid, {
      blankIsMissing: true,
      check: ({ amount }) =>
        toMinor(amount) > toMinor(owed)
          ? { amount: t('screens.commission.overPayable', { amount: thousands(owed) }) }
          : undefined,
      via: call,
    });
  };

  const agent = statement.data;
  return (
    <Modal
      title={
        agent
          ? t('screens.commission.payTitle', { agent: `${agent.agentCode} ${agent.agentName}` })
          : t('commands.agentCommission.pay.title')
      }
      onClose={() => close()}
    >
      {statement.isPending ? (
        <Spinner />
      ) : (
        <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
          {unbound && <UnboundNotice close={() => close()} />}
          <RefusalNote
            refusal={
              refusal?.startsWith(`${errno.referenceTaken}:`)
                ? `${errno.referenceTaken}: ${t('screens.commission.referenceTaken')}`
                : refusal
            }
          />
          {payable.length > 1 && (
            <SelectField
              label={t('screens.commission.currency')}
              value={currency}
              onValue={(v) => set('currency', v)}
              options={payable.map((p) => ({ value: p.currency, label: p.currency }))}
            />
          )}
          <DecimalField
            label={t('screens.commission.amount')}
            {...form.field('amount')}
            hint={t('screens.commission.payableHint', { amount: thousands(owed), currency })}
            required
          />
          <VerbatimField
            label={t('screens.commission.reference')}
            {...form.field('reference')}
            hint={t('screens.commission.referenceHint')}
            maxLength={100}
            required
          />
          <NoteField label={t('screens.commission.note')} {...form.field('note')} />
          <CodeAndActions form={form} onCancel={() => close()} submitLabel={t('screens.commission.pay')} />
        </form>
      )}
    </Modal>
  );
}
