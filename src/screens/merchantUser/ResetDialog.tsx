import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';

interface Props {
  user: Contexts['merchantUser'];
  which: 'password' | 'google';
  close: (result?: unknown) => void;
}

const endpointOf = {
  password: endpoints.merchantUser.resetPassword,
  google: endpoints.merchantUser.resetGoogle,
} as const;

/**
 * Resets a merchant user's password or Google key: says what stops working and how the user is told,
 * takes the operator's Google code, and closes with the answer (whether the user was mailed).
 */
export default function ResetDialog({ user, which, close }: Props) {
  const t = useT();
  const formRef = useOpeningFocus('input[autocomplete="one-time-code"]');
  const form = useForm({ code: '' });
  const { unbound, call } = useCodeConfirmed(form);
  const endpoint = endpointOf[which];
  const title = t(`commands.merchantUser.${which === 'password' ? 'resetPassword' : 'resetGoogle'}.title`);
  // A reset code goes to the user's address: without one the password could never be set again.
  const blocked = which === 'password' && !user.email;
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    form.send(endpoint, { id: user.id, code: form.values.code.trim() }, (told) => close(told), { via: call });
  };
  return (
    <Modal title={`${title} · ${user.username}`} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <p className="notice" role="note">
          {blocked
            ? t('screens.merchantUser.noEmail', { username: user.username })
            : t(`screens.merchantUser.${which === 'password' ? 'resetPasswordText' : 'resetGoogleText'}`, {
                username: user.username,
                email: user.email,
              })}
        </p>
        {form.errors.id && (
          <p className="field-error" role="alert">
            {form.errors.id}
          </p>
        )}
        {unbound && <UnboundNotice close={() => close()} />}
        {blocked ? (
          <div className="form-actions">
            <button type="button" className="button" onClick={() => close()}>
              {t('app.cancel')}
            </button>
          </div>
        ) : (
          <CodeAndActions form={form} onCancel={() => close()} submitLabel={title} tone="danger" />
        )}
      </form>
    </Modal>
  );
}
