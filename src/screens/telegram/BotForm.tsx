import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, toldThenClose, useForm, VerbatimField } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';

/**
 * Sets or replaces the Telegram bot token, confirmed with the Google code. The token is typed here once
 * and never shown again: the server seals it and answers only that one is set.
 */
export default function BotForm({ close }: { close: (result?: unknown) => void }) {
  const t = useT();
  // The first field, also when opened over a row's drawer (autoFocus loses to the drawer's focus trap).
  const formRef = useOpeningFocus();
  const form = useForm({ token: '', code: '' });
  const { unbound, call } = useCodeConfirmed(form);
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = { token: form.values.token.trim(), code: form.values.code.trim() };
    const saved = toldThenClose(close, () => t('screens.telegram.botSaved'));
    form.send(endpoints.telegram.botUpdate, input, saved, { via: call });
  };
  return (
    <Modal
      title={t('commands.telegram.botUpdate.title')}
      description={t('screens.telegram.botHint')}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {unbound && <UnboundNotice close={() => close()} />}
        <VerbatimField
          label={t('screens.telegram.token')}
          type="password"
          {...form.field('token')}
          required
        />
        <CodeAndActions form={form} onCancel={() => close()} submitLabel={t('app.save')} />
      </form>
    </Modal>
  );
}
