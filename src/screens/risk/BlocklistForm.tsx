import { type BlocklistKind, blocklistKinds } from '../../../contract/endpoints/risk.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { SelectField, valueOptions } from '../../ui/fields.tsx';
import { Field, FormActions, ReasonField, toldThenClose, useForm, VerbatimField } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';

/**
 * A new blocklist entry: what it names (a merchant by its code, or a payer's phone, e-mail, address or
 * UPI ID), why, and optionally when it stops applying. It applies from the next request on.
 */
export default function BlocklistForm({ close }: { close: (result?: unknown) => void }) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ kind: 'payer_phone' as BlocklistKind, value: '', reason: '', endsAt: '' });
  const { values, set, errors } = form;
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    // The field holds a local time; the server takes an instant.
    const endsAt = values.endsAt ? new Date(values.endsAt).toISOString() : null;
    const input = { kind: values.kind, value: values.value.trim(), reason: values.reason.trim(), endsAt };
    form.send(
      endpoints.blocklist.add,
      input,
      toldThenClose(close, () => t('screens.blocklist.added')),
      { blankIsMissing: true },
    );
  };
  return (
    <Modal title={t('commands.blocklist.create.title')} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <SelectField
          label={t('screens.blocklist.kind')}
          value={values.kind}
          onValue={(v) => set('kind', v as BlocklistKind)}
          error={errors.kind}
          options={valueOptions(blocklistKinds, (k) => t(`risk.rules.${k}`))}
        />
        <VerbatimField
          label={t('screens.blocklist.value')}
          {...form.field('value')}
          hint={t(`screens.blocklist.valueHints.${values.kind}`)}
          maxLength={254}
          required
        />
        <ReasonField label={t('screens.blocklist.reason')} {...form.field('reason')} />
        <Field
          label={t('screens.blocklist.endsAt')}
          type="datetime-local"
          {...form.field('endsAt')}
          hint={t('screens.blocklist.endsAtHint')}
        />
        <FormActions busy={form.busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
