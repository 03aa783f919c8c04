import { useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, useForm, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';

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
  const { unbound, call } = useCodeConfirmed(form);
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = { id: merchant.id, which, code: form.values.code.trim() };
    const checked = validate(endpoints.merchant.resetSecret.input, input);
    if (!checked.ok) return form.setErrors(checked.errors);
    void form.submit(async () => {
      const secrets = await call(endpoints.merchant.resetSecret, input);
      if (secrets) close(secrets);
    });
  };
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
