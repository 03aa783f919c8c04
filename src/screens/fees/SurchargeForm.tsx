import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { Field, FormActions, savedThenClose, useForm } from '../../ui/form.tsx';
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
    form.send(endpoints.merchant.surchargeUpdate, input, savedThenClose(close), { blankIsMissing: true });
  };
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <Field
        label={t('screens.fees.surchargePercent')}
        {...form.field('surcharge')}
        hint={t('validation.rate')}
        inputMode="decimal"
        autoComplete="off"
        autoFocus
        required
      />
      <FormActions busy={form.busy} onCancel={() => close()} />
    </form>
  );
}
