import type { Contexts } from '../../../commands/index.ts';
import { accountLabel } from '../../../contract/endpoints/receiving.ts';
import { endpoints, errno } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import {
  CodeAndActions,
  DecimalField,
  NoteField,
  RefusalNote,
  useForm,
  VerbatimField,
} from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';

/** Said inside the dialog: the account has an open freeze already. */
const refusals = [errno.conflict, errno.notFound];

/**
 * Records a bank's freeze of a receiving account: the amount frozen, the reference the bank named, its
 * letter as a note, confirmed with the Google code. The account leaves routing at once and each merchant's
 * share of the amount is held; the dialog closes with the freeze, whose drawer then opens.
 */
export default function RecordFreezeDialog({
  account,
  close,
}: {
  account: Contexts['receivingAccount'];
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ amount: '', reference: '', note: '', code: '' });
  const { unbound, refusal, call } = useCodeConfirmed(form, refusals);
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const { values } = form;
    form.send(
      endpoints.accountFreeze.record,
      {
        accountId: account.id,
        amount: values.amount.trim(),
        reference: values.reference.trim(),
        note: values.note.trim(),
        code: values.code.trim(),
      },
      (done) => {
        toast(
          'success',
          t('screens.accountFreeze.recordedToast', {
            amount: thousands(done.amount),
            held: thousands(done.held),
            merchants: done.merchants,
          }),
        );
        close(done);
      },
      { blankIsMissing: true, via: call },
    );
  };
  return (
    <Modal
      title={t('commands.accountFreeze.record.title')}
      description={t('screens.accountFreeze.recordHint', { account: accountLabel(account) })}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {unbound && <UnboundNotice close={() => close()} />}
        <RefusalNote refusal={refusal} />
        <DecimalField
          label={t('screens.accountFreeze.amount')}
          {...form.field('amount')}
          hint={t('screens.accountFreeze.amountHint')}
          required
        />
        <VerbatimField
          label={t('screens.accountFreeze.reference')}
          {...form.field('reference')}
          hint={t('screens.accountFreeze.referenceHint')}
          required
        />
        <NoteField
          label={t('screens.accountFreeze.note')}
          {...form.field('note')}
          hint={t('screens.accountFreeze.noteHint')}
        />
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={t('commands.accountFreeze.record.title')}
          tone="danger"
        />
      </form>
    </Modal>
  );
}
