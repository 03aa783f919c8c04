import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { Field, FormActions, savedThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { Spinner } from '../../ui/Spinner.tsx';
import { useMerchantInfo } from './merchantInfo.ts';

type Props = { merchantId?: number | undefined; close: (result?: unknown) => void };

/** The callback URL of orders made in the console (gateway orders carry their own `notifyUrl`). */
export default function CallbackForm({ merchantId, close }: Props) {
  const t = useT();
  const info = useMerchantInfo(merchantId);
  return (
    <Modal
      title={t('commands.dev.callbackUpdate.title')}
      description={t('screens.dev.callbackHint')}
      onClose={() => close()}
    >
      {info.data ? (
        <Form merchantId={merchantId} current={info.data.callbackUrl} close={close} />
      ) : (
        <Spinner />
      )}
    </Modal>
  );
}

function Form({ merchantId, current, close }: Props & { current: string }) {
  const t = useT();
  const form = useForm({ callbackUrl: current });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      ...(merchantId === undefined ? {} : { id: merchantId }),
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
