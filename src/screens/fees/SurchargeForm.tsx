import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { DecimalField, FormActions, savedThenClose, useForm } from '../../ui/form.tsx';
import { merchantSettingDialog, type SettingFormProps } from '../dev/MerchantSettingDialog.tsx';
import { merchantTarget } from '../dev/merchantInfo.ts';

/** The surcharge (a percentage shown to payers) that the merchant sets itself. */
export default merchantSettingDialog(
  'commands.fees.surchargeUpdate.title',
  'screens.fees.surchargeHint',
  Form,
);

function Form({ merchantId, current, close }: SettingFormProps) {
  const t = useT();
  const form = useForm({ surcharge: current.surcharge });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      ...merchantTarget(merchantId),
      surcharge: form.values.surcharge.trim(),
    };
    form.send(endpoints.merchant.surchargeUpdate, input, savedThenClose(close), { blankIsMissing: true });
  };
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <DecimalField
        label={t('screens.fees.surchargePercent')}
        {...form.field('surcharge')}
        hint={t('validation.rate')}
        autoFocus
        required
      />
      <FormActions busy={form.busy} onCancel={() => close()} />
    </form>
  );
}
