import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { FormActions, ReasonField, toldThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  merchant: Contexts['merchant'];
  close: (result?: unknown) => void;
}

/** The danger confirmation of a freeze: what it stops, an optional reason for the log, a red button. */
export default function FreezeForm({ merchant, close }: Props) {
  const t = useT();
  const form = useForm({ reason: '' });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const reason = form.values.reason.trim();
    const input = { id: merchant.id, frozen: true, ...(reason ? { reason } : {}) };
    form.send(
      endpoints.merchant.freeze,
      input,
      toldThenClose(close, () => t('screens.merchant.frozen', { code: merchant.code })),
    );
  };
  return (
    <Modal
      title={t('screens.merchant.freezeTitle', { code: merchant.code, name: merchant.name })}
      onClose={() => close()}
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <p className="modal-text">{t('screens.merchant.freezeText')}</p>
        <ReasonField
          label={t('screens.merchant.freezeReason')}
          {...form.field('reason')}
          autoFocus
          required={false}
        />
        <FormActions
          busy={form.busy}
          onCancel={() => close()}
          submitLabel={t('commands.merchant.freeze.title')}
          tone="danger"
        />
      </form>
    </Modal>
  );
}
