import { endpoints, type Input } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { merchantTarget } from './merchantInfo.ts';

interface Props {
  which: 'api' | 'webhook';
  /** The merchant a platform user acts on; a merchant user's own when absent. */
  merchantId?: number | undefined;
  code: string;
  name: string;
  close: (result?: unknown) => void;
}

type ResetInput = Omit<Input<typeof endpoints.merchant.resetSecret>, 'code'>;

/**
 * The reset's submission for both forms (this dialog, and the platform's chooser on the merchant screen):
 * the input checked with the user's Google code, closed with the new secrets.
 */
export function useResetSecret(
  form: ReturnType<typeof useForm<{ code: string }>>,
  close: (result?: unknown) => void,
  what: () => ResetInput,
) {
  const { unbound, call } = useCodeConfirmed(form);
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = { ...what(), code: form.values.code.trim() };
    form.send(endpoints.merchant.resetSecret, input, (secrets) => close(secrets), { via: call });
  };
  return { unbound, onSubmit };
}

/**
 * Resets one secret of the development settings: says what stops working, takes the user's Google code
 * (whoever holds the API secret can pay out), and closes with the new secrets.
 */
export default function ResetSecretDialog({ which, merchantId, code, name, close }: Props) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ code: '' });
  const { unbound, onSubmit } = useResetSecret(form, close, () => ({
    ...merchantTarget(merchantId),
    which,
  }));
  const title = t(`commands.dev.${which === 'api' ? 'resetApiSecret' : 'resetWebhookSecret'}.title`);

  return (
    <Modal title={title} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <p className="notice" role="note">
          {t(`screens.dev.reset.${which}Confirm`, { code, name })}
        </p>
        {unbound && <UnboundNotice close={() => close()} />}
        <CodeAndActions form={form} onCancel={() => close()} submitLabel={title} tone="danger" />
      </form>
    </Modal>
  );
}
