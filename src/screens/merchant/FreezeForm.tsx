import { useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { Field } from '../../ui/form.tsx';
import { validatePaths } from '../../ui/formPaths.ts';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  merchant: Contexts['merchant'];
  close: (result?: unknown) => void;
}

/** The danger confirmation of a freeze: what it stops, an optional reason for the log, a red button. */
export default function FreezeForm({ merchant, close }: Props) {
  const t = useT();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    const input = { id: merchant.id, frozen: true, ...(reason.trim() ? { reason: reason.trim() } : {}) };
    const checked = validatePaths(endpoints.merchant.freeze.input, input);
    if (!checked.ok) return setError(checked.errors.reason);
    setBusy(true);
    try {
      await api(endpoints.merchant.freeze, input);
      toast('success', t('screens.merchant.frozen', { code: merchant.code }));
      close(true);
    } catch {
      setBusy(false);
    }
  };
  return (
    <Modal
      title={t('screens.merchant.freezeTitle', { code: merchant.code, name: merchant.name })}
      onClose={() => close()}
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <p className="modal-text">{t('screens.merchant.freezeText')}</p>
        <Field
          label={t('screens.merchant.freezeReason')}
          value={reason}
          onValue={(v) => {
            setReason(v);
            setError(undefined);
          }}
          error={error}
          maxLength={200}
          autoFocus
          autoComplete="off"
        />
        <div className="form-actions">
          <button type="button" className="button" onClick={() => close()}>
            {t('app.cancel')}
          </button>
          <button type="submit" className="button danger" disabled={busy}>
            {t('commands.merchant.freeze.title')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
