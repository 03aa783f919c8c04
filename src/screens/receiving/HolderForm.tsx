import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { SelectField, valueOptions } from '../../ui/fields.tsx';
import { Field, FormActions, savedThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';

type Holder = Contexts['accountHolder'];

interface Props {
  holder?: Holder;
  close: (result?: unknown) => void;
}

/** Creates or edits an account holder: name, phone, ID document number, commission rate, status. */
export default function HolderForm({ holder, close }: Props) {
  const t = useT();
  const form = useForm({
    name: holder?.name ?? '',
    phone: holder?.phone ?? '',
    idNumber: holder?.idNumber ?? '',
    commissionRate: holder?.commissionRate ?? '0',
    status: holder?.status ?? 'active',
  });
  const { values, set } = form;
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const saved = savedThenClose(close);
    const { status, ...fields } = values;
    if (holder) form.send(endpoints.accountHolder.update, { id: holder.id, ...fields, status }, saved);
    else form.send(endpoints.accountHolder.create, fields, saved);
  };
  const text = (key: 'name' | 'phone' | 'idNumber' | 'commissionRate', label: string) => (
    <Field label={t(`screens.receiving.${label}`)} {...form.field(key)} autoComplete="off" required />
  );
  return (
    <Modal
      title={t(holder ? 'commands.accountHolder.edit.title' : 'commands.accountHolder.create.title')}
      onClose={() => close()}
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        {text('name', 'holderName')}
        {text('phone', 'phone')}
        {text('idNumber', 'idNumber')}
        {text('commissionRate', 'commissionRatePercent')}
        {holder && (
          <SelectField
            label={t('screens.receiving.status')}
            value={values.status}
            onValue={(v) => set('status', v as Holder['status'])}
            options={valueOptions(['active', 'disabled'], (s) => t(`screens.receiving.holderStatuses.${s}`))}
          />
        )}
        <FormActions busy={form.busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
