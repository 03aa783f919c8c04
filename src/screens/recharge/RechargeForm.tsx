import { endpoints, errno } from '../../../contract/index.ts';
import { api, isApiError } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { DecimalField, Field, FormActions, NoteField, toldThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';

/** A merchant reports a bank transfer to the platform; it waits as `pending` until a platform user decides. */
export default function RechargeForm({ close }: { close: (result?: unknown) => void }) {
  const t = useT();
  const form = useForm({ amount: '', reference: '', note: '' });
  const { values } = form;
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      amount: values.amount.trim(),
      reference: values.reference,
      ...(values.note.trim() ? { note: values.note.trim() } : {}),
    };
    form.send(
      endpoints.merchantRechargeLog.create,
      input,
      toldThenClose(close, (row) =>
        t('screens.recharge.submitted', { amount: thousands(row.amount), currency: row.currency }),
      ),
      {
        blankIsMissing: true,
        via: async (endpoint, checked) => {
          try {
            return await api(endpoint, checked, { quiet: [errno.invalid, errno.referenceTaken] });
          } catch (error) {
            // A transfer credits once: a reference already reported is said next to its field.
            if (!isApiError(error, errno.referenceTaken)) throw error;
            form.setErrors({ reference: t(`errno.${errno.referenceTaken}`) });
            return undefined;
          }
        },
      },
    );
  };
  return (
    <Modal
      title={t('commands.merchantRechargeLog.create.title')}
      description={t('screens.recharge.createHint')}
      onClose={() => close()}
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <DecimalField label={t('screens.recharge.amount')} {...form.field('amount')} autoFocus required />
        <Field
          label={t('screens.recharge.reference')}
          {...form.field('reference')}
          hint={t('screens.recharge.referenceHint')}
          maxLength={100}
          autoComplete="off"
          required
        />
        <NoteField label={t('screens.recharge.note')} {...form.field('note')} />
        <FormActions busy={form.busy} onCancel={() => close()} submitLabel={t('screens.recharge.submit')} />
      </form>
    </Modal>
  );
}
