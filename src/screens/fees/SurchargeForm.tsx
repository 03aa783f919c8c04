import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { Field, missingFirst, useForm, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { Spinner } from '../../ui/Spinner.tsx';
import { useMerchantInfo } from '../dev/merchantInfo.ts';

type Props = { merchantId?: number | undefined; close: (result?: unknown) => void };

/** The surcharge (a percentage shown to payers) that the merchant sets itself. */
export default function SurchargeForm({ merchantId, close }: Props) {
  const t = useT();
  const info = useMerchantInfo(merchantId);
  return (
    <Modal
      title={t('commands.fees.surchargeUpdate.title')}
      description={t('screens.fees.surchargeHint')}
      onClose={() => close()}
    >
      {info.data ? <Form merchantId={merchantId} current={info.data.surcharge} close={close} /> : <Spinner />}
    </Modal>
  );
}

function Form({ merchantId, current, close }: Props & { current: string }) {
  const t = useT();
  const form = useForm({ surcharge: current });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      ...(merchantId === undefined ? {} : { id: merchantId }),
      surcharge: form.values.surcharge.trim(),
    };
    const checked = validate(endpoints.merchant.surchargeUpdate.input, input);
    if (!checked.ok) return form.setErrors(missingFirst(checked.errors, input));
    void form.submit(async () => {
      await api(endpoints.merchant.surchargeUpdate, input, { quiet: [422] });
      toast('success', t('app.saved'));
      close(true);
    });
  };
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <Field
        label={t('screens.fees.surchargePercent')}
        value={form.values.surcharge}
        onValue={(v) => form.set('surcharge', v)}
        error={form.errors.surcharge}
        hint={t('validation.rate')}
        inputMode="decimal"
        autoComplete="off"
        autoFocus
        required
      />
      <div className="form-actions">
        <button type="button" className="button" onClick={() => close()}>
          {t('app.cancel')}
        </button>
        <button type="submit" className="button primary" disabled={form.busy}>
          {t('app.save')}
        </button>
      </div>
    </form>
  );
}
