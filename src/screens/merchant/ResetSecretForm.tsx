import { useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { useResetSecret } from '../dev/ResetSecretDialog.tsx';

interface Props {
  merchant: Contexts['merchant'];
  close: (result?: unknown) => void;
}

const choices = ['both', 'api', 'webhook'] as const;

/**
 * Chooses which secret to replace, warns that the old one stops at once, takes the user's Google code
 * (whoever holds the API secret can pay out), and answers the new ones.
 */
export default function ResetSecretForm({ merchant, close }: Props) {
  const t = useT();
  const formRef = useOpeningFocus('input[autocomplete="one-time-code"]');
  const [which, setWhich] = useState<(typeof choices)[number]>('both');
  const form = useForm({ code: '' });
  const { unbound, onSubmit } = useResetSecret(form, close, () => ({ id: merchant.id, which }));
  return (
    <Modal
      title={t('screens.merchant.resetFor', { code: merchant.code, name: merchant.name })}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <p className="notice">{t('screens.merchant.resetWarning')}</p>
        <fieldset className="field">
          <legend>{t('screens.merchant.resetWhich')}</legend>
          <div className="checks">
            {choices.map((c) => (
              <label key={c} className="check">
                <input
                  type="radio"
                  name="which"
                  value={c}
                  checked={which === c}
                  onChange={() => setWhich(c)}
                />
                {t(`screens.merchant.which.${c}`)}
              </label>
            ))}
          </div>
        </fieldset>
        {unbound && <UnboundNotice close={() => close()} />}
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={t('commands.merchant.resetSecret.title')}
          tone="danger"
        />
      </form>
    </Modal>
  );
}
