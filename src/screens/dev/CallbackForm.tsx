import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { Field, FormActions, savedThenClose, useForm } from '../../ui/form.tsx';
import { merchantSettingDialog, type SettingFormProps } from './MerchantSettingDialog.tsx';
import { merchantTarget } from './merchantInfo.ts';

/** The callback URL of orders made in the console (gateway orders carry their own `notifyUrl`). */
export default merchantSettingDialog('commands.dev.callbackUpdate.title', 'screens.dev.callbackHint', Form);

function Form({ merchantId, current, close }: SettingFormProps) {
  const t = useT();
  const form = useForm({ callbackUrl: current.callbackUrl });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      ...merchantTarget(merchantId),
      callbackUrl: form.values.callbackUrl.trim(),
    };
    const saved = savedThenClose(close);
    form.send(endpoints.merchant.callbackUpdate, input, saved, {
      // The URL-or-empty union reports a generic issue: say what a valid value looks like.
      explain: () => ({ callbackUrl: t('validation.url') }),
    });
  };
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <Field
        label={t('screens.dev.callbackUrl')}
        inputMode="url"
        {...form.field('callbackUrl')}
        hint={t('screens.dev.callbackEmpty')}
        autoComplete="off"
        autoFocus
      />
      <FormActions busy={form.busy} onCancel={() => close()} />
    </form>
  );
}
