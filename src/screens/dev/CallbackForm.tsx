import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { Field, useForm, validate } from '../../ui/form.tsx';
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
    const checked = validate(endpoints.merchant.callbackUpdate.input, input);
    // The URL-or-empty union reports a generic issue: say what a valid value looks like.
    if (!checked.ok) return form.setErrors({ callbackUrl: t('validation.url') });
    void form.submit(async () => {
      await api(endpoints.merchant.callbackUpdate, input, { quiet: [422] });
      toast('success', t('app.saved'));
      close(true);
    });
  };
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <Field
        label={t('screens.dev.callbackUrl')}
        inputMode="url"
        value={form.values.callbackUrl}
        onValue={(v) => form.set('callbackUrl', v)}
        error={form.errors.callbackUrl}
        hint={t('screens.dev.callbackEmpty')}
        autoComplete="off"
        autoFocus
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
