import { endpoints, errno } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { useChoices } from '../../ui/choices.ts';
import { rowOptions, SelectField } from '../../ui/fields.tsx';
import { Field, FormActions, savedThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  close: (result?: unknown) => void;
}

/** Binds a receiving account to a bank channel: weight, the merchants it serves (none: all), active hours. */
export default function BindingForm({ close }: Props) {
  const t = useT();
  const form = useForm({
    accountId: '',
    channelId: '',
    weight: '100',
    merchantIds: '',
    activeFrom: '',
    activeTo: '',
  });
  const { values } = form;
  const accounts = useChoices(endpoints.receivingAccount.list, {});
  const channels = useChoices(endpoints.channel.list, {});
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      accountId: Number(values.accountId),
      channelId: Number(values.channelId),
      weight: Number(values.weight),
      merchantIds: values.merchantIds
        .split(/[\s,]+/)
        .filter(Boolean)
        .map(Number),
      ...(values.activeFrom ? { activeFrom: values.activeFrom } : {}),
      ...(values.activeTo ? { activeTo: values.activeTo } : {}),
    };
    const saved = savedThenClose(close);
    form.send(endpoints.cardBinding.create, input, saved, { quiet: [errno.conflict] });
  };
  return (
    <Modal title={t('commands.cardBinding.create.title')} onClose={() => close()}>
      <form className="form" onSubmit={onSubmit} noValidate>
        <SelectField
          label={t('screens.receiving.account')}
          {...form.field('accountId')}
          options={rowOptions(
            t('screens.receiving.chooseAccount'),
            accounts.data?.list,
            (a) => `${a.bankName} · ${a.accountNumber}`,
          )}
        />
        <SelectField
          label={t('screens.receiving.channel')}
          {...form.field('channelId')}
          options={rowOptions(
            t('screens.receiving.chooseChannel'),
            channels.data?.list.filter((c) => c.adapter === 'bank'),
            (c) => `${c.code} · ${c.name}`,
          )}
        />
        <Field label={t('screens.receiving.weight')} {...form.field('weight')} inputMode="numeric" />
        <Field
          label={t('screens.receiving.merchantIds')}
          {...form.field('merchantIds')}
          hint={t('screens.receiving.merchantIdsHint')}
        />
        <Field label={t('screens.receiving.activeFrom')} {...form.field('activeFrom')} placeholder="09:00" />
        <Field label={t('screens.receiving.activeTo')} {...form.field('activeTo')} placeholder="21:00" />
        <FormActions busy={form.busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
