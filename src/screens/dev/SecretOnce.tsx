import { useT } from '../../lib/useT.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  which: 'api' | 'webhook';
  code: string;
  secret: string;
  close: (result?: unknown) => void;
}

/**
 * A secret just issued, shown this once: the server keeps it sealed and answers only a mask afterwards.
 * Nothing keeps it once the dialog closes.
 */
export default function SecretOnce({ which, code, secret, close }: Props) {
  const t = useT();
  const label = t(`screens.dev.${which}Secret`);
  return (
    <Modal
      title={t(which === 'api' ? 'screens.dev.reset.newApi' : 'screens.dev.reset.newWebhook')}
      onClose={() => close()}
    >
      <div className="form">
        <p className="notice" role="alert">
          {t('screens.dev.reset.onceWarning')}
        </p>
        <dl className="facts">
          <div>
            <dt>{t('screens.dev.merchantCode')}</dt>
            <dd>
              <code>{code}</code>
            </dd>
          </div>
        </dl>
        <div className="secret-once">
          <code className="secret" data-testid="new-secret">
            {secret}
          </code>
          <CopyButton text={secret} label={label} />
        </div>
        <div className="form-actions">
          <button type="button" className="button primary" onClick={() => close()}>
            {t('screens.dev.reset.stored')}
          </button>
        </div>
      </div>
    </Modal>
  );
}
