import type { Contexts } from '../../../commands/index.ts';
import { endpoints, errno } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { useChoices } from '../../ui/choices.ts';
import { rowOptions, SelectField } from '../../ui/fields.tsx';
import { Field, FormActions, savedThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';

type Account = Contexts['receivingAccount'];

interface Props {
  kind: Account['kind'];
  account?: Account;
  close: (result?: unknown) => void;
}

/** An optional field: left out when blank. */
const given = (v: string) => (v.trim() === '' ? undefined : v.trim());

/** Creates or edits a public account or a donor card: bank details, UPI address, daily and per-order limits. */
export default function AccountForm({ kind, account, close }: Props) {
  const t = useT();
  const form = useForm({
    bankName: account?.bankName ?? '',
    accountName: account?.accountName ?? '',
    accountNumber: account?.accountNumber ?? '',
    ifsc: account?.ifsc ?? '',
    vpa: account?.vpa ?? '',
    dailyLimit: account?.dailyLimit ?? '',
    dailyCount: account?.dailyCount == null ? '' : String(account.dailyCount),
    minAmount: account?.minAmount ?? '',
    maxAmount: account?.maxAmount ?? '',
    holderId: account?.holderId == null ? '' : String(account.holderId),
  });
  const { values } = form;
  const holders = useChoices(
    endpoints.accountHolder.list,
    { status: 'active' },
    { enabled: kind === 'card' },
  );
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const saved = savedThenClose(close);
    const count = given(values.dailyCount);
    const fields = {
      bankName: values.bankName,
      accountName: values.accountName,
      ifsc: values.ifsc,
      dailyLimit: values.dailyLimit,
      ...(given(values.minAmount) ? { minAmount: given(values.minAmount) } : {}),
      ...(given(values.maxAmount) ? { maxAmount: given(values.maxAmount) } : {}),
      ...(count ? { dailyCount: Number(count) } : {}),
      ...(given(values.holderId) ? { holderId: Number(values.holderId) } : {}),
    };
    if (account) {
      const input = {
        id: account.id,
        ...fields,
        vpa: given(values.vpa) ?? null,
        ...(count ? {} : { dailyCount: null }),
        ...(given(values.minAmount) ? {} : { minAmount: null }),
        ...(given(values.maxAmount) ? {} : { maxAmount: null }),
      };
      form.send(endpoints.receivingAccount.update, input, saved);
    } else {
      const input = {
        kind,
        accountNumber: values.accountNumber,
        ...fields,
        ...(given(values.vpa) ? { vpa: given(values.vpa) } : {}),
      };
      form.send(endpoints.receivingAccount.create, input, saved, { quiet: [errno.conflict] });
    }
  };
  const text = (
    key: keyof typeof values,
    label: string,
    extra: { required?: boolean; hint?: string } = {},
  ) => <Field label={t(`screens.receiving.${label}`)} {...form.field(key)} autoComplete="off" {...extra} />;
  const title = account
    ? 'commands.receivingAccount.edit.title'
    : kind === 'public'
      ? 'commands.receivingAccount.createPublic.title'
      : 'commands.receivingAccount.createCard.title';
  return (
    <Modal title={t(title)} onClose={() => close()}>
      <form className="form" onSubmit={onSubmit} noValidate>
        {kind === 'card' && (
          <SelectField
            label={t('screens.receiving.holder')}
            {...form.field('holderId')}
            options={rowOptions(
              t('screens.receiving.chooseHolder'),
              holders.data?.list,
              (h) => `${h.name} · ${h.phone}`,
            )}
          />
        )}
        {text('bankName', 'bankName', { required: true })}
        {text('accountName', 'accountName', { required: true })}
        {account ? null : text('accountNumber', 'accountNumber', { required: true })}
        {text('ifsc', 'ifsc', { required: true, hint: t('screens.receiving.ifscHint') })}
        {text('vpa', 'vpa', { hint: t('screens.receiving.vpaHint') })}
        {text('dailyLimit', 'dailyLimit', { required: true })}
        {text('dailyCount', 'dailyCount')}
        {text('minAmount', 'minAmount')}
        {text('maxAmount', 'maxAmount')}
        <FormActions busy={form.busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
