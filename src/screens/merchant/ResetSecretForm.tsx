import { useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { useT } from '../../lib/useT.ts';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  merchant: Contexts['merchant'];
  close: (result?: unknown) => void;
}

const choices = ['both', 'api', 'webhook'] as const;

/** Chooses which secret to replace, warns that the old one stops at once, and answers the new ones. */
export default function ResetSecretForm({ merchant, close }: Props) {
  const t = useT();
  const [which, setWhich] = useState<(typeof choices)[number]>('both');
  const [busy, setBusy] = useState(false);
  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      close(await api(endpoints.merchant.resetSecret, { id: merchant.id, which }));
    } catch {
      setBusy(false);
    }
  };
  return (
    <Modal
      title={t('screens.merchant.resetFor', { code: merchant.code, name: merchant.name })}
      onClose={() => close()}
    >
      <form className="form" onSubmit={onSubmit}>
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
        <div className="form-actions">
          <button type="button" className="button" onClick={() => close()}>
            {t('app.cancel')}
          </button>
          {/* biome-ignore lint/a11y/noAutofocus: a keyboard user confirms with Enter, as in every confirmation */}
          <button type="submit" className="button danger" disabled={busy} autoFocus>
            {t('commands.merchant.resetSecret.title')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
