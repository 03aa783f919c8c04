import { endpoints, errno } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { useChoices } from '../../ui/choices.ts';
import { rowOptions, SelectField, valueOptions } from '../../ui/fields.tsx';
import { Field, FormActions, savedThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  close: (result?: unknown) => void;
}

/** Registers a phone number or UPI handle to an account holder, linked to some of the holder's cards. */
export default function NumberForm({ close }: Props) {
  const t = useT();
  const form = useForm({
    holderId: '',
    kind: 'phone' as 'phone' | 'upi',
    value: '',
    accountIds: [] as string[],
  });
  const { values, set, errors } = form;
  const holders = useChoices(endpoints.accountHolder.list, {});
  const cards = useChoices(
    endpoints.receivingAccount.list,
    { kind: 'card', holderId: Number(values.holderId) },
    { enabled: values.holderId !== '' },
  );
  const toggle = (id: string) =>
    set(
      'accountIds',
      values.accountIds.includes(id) ? values.accountIds.filter((x) => x !== id) : [...values.accountIds, id],
    );
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      holderId: Number(values.holderId),
      kind: values.kind,
      value: values.value,
      accountIds: values.accountIds.map(Number),
    };
    const saved = savedThenClose(close);
    form.send(endpoints.holderNumber.create, input, saved, { quiet: [errno.conflict] });
  };
  return (
    <Modal title={t('commands.holderNumber.create.title')} onClose={() => close()}>
      <form className="form" onSubmit={onSubmit} noValidate>
        <SelectField
          label={t('screens.receiving.holder')}
          value={values.holderId}
          onValue={(v) => {
            set('holderId', v);
            set('accountIds', []);
          }}
          error={errors.holderId}
          options={rowOptions(
            t('screens.receiving.chooseHolder'),
            holders.data?.list,
            (h) => `${h.name} · ${h.phone}`,
          )}
        />
        <SelectField
          label={t('screens.receiving.numberKind')}
          value={values.kind}
          onValue={(v) => set('kind', v as 'phone' | 'upi')}
          options={valueOptions(['phone', 'upi'], (k) => t(`screens.receiving.numberKinds.${k}`))}
        />
        <Field label={t('screens.receiving.number')} {...form.field('value')} autoComplete="off" required />
        {(cards.data?.list.length ?? 0) > 0 && (
          <fieldset className="field">
            <legend>{t('screens.receiving.linkedCards')}</legend>
            <div className="checks">
              {cards.data!.list.map((c) => (
                <label key={c.id}>
                  <input
                    type="checkbox"
                    checked={values.accountIds.includes(String(c.id))}
                    onChange={() => toggle(String(c.id))}
                  />{' '}
                  {`${c.bankName} · ${c.accountNumber}`}
                </label>
              ))}
            </div>
            {errors.accountIds && <p className="field-error">{errors.accountIds}</p>}
          </fieldset>
        )}
        <FormActions busy={form.busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
