import { useQuery } from '@tanstack/react-query';
import { endpoints, errno } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { useT } from '../../lib/useT.ts';
import { SelectField } from '../../ui/fields.tsx';
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
  const accounts = useQuery({
    queryKey: ['receivingAccount', 'all'],
    queryFn: ({ signal }) => api(endpoints.receivingAccount.list, { pageSize: 100 }, { signal }),
  });
  const channels = useQuery({
    queryKey: ['channel', 'all'],
    queryFn: ({ signal }) => api(endpoints.channel.list, { pageSize: 100 }, { signal }),
  });
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
          options={[
            { value: '', label: t('screens.receiving.chooseAccount') },
            ...(accounts.data?.list ?? []).map((a) => ({
              value: String(a.id),
              label: `${a.bankName} · ${a.accountNumber}`,
            })),
          ]}
        />
        <SelectField
          label={t('screens.receiving.channel')}
          {...form.field('channelId')}
          options={[
            { value: '', label: t('screens.receiving.chooseChannel') },
            ...(channels.data?.list ?? [])
              .filter((c) => c.adapter === 'bank')
              .map((c) => ({ value: String(c.id), label: `${c.code} · ${c.name}` })),
          ]}
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
