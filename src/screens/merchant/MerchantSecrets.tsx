import { useT } from '../../lib/useT.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { Modal } from '../../ui/Modal.tsx';
import './merchant.css';

interface Props {
  secrets: { id: number; code: string; apiSecret: string; webhookSecret: string };
  /** `created` after a new merchant, `reset` after new secrets. */
  reason: 'created' | 'reset';
  close: (result?: unknown) => void;
}

/**
 * The merchant code and secrets, shown this once with copy buttons: the server keeps them sealed and
 * never answers them again. Only the button closes it, so a stray Escape does not lose them.
 */
export default function MerchantSecrets({ secrets, reason, close }: Props) {
  const t = useT();
  const rows = [
    { key: 'code', label: t('screens.merchant.code'), value: secrets.code },
    { key: 'api', label: t('screens.merchant.apiSecret'), value: secrets.apiSecret },
    { key: 'webhook', label: t('screens.merchant.webhookSecret'), value: secrets.webhookSecret },
  ].filter((r) => r.value !== '');
  return (
    <Modal
      title={t(reason === 'created' ? 'screens.merchant.createdTitle' : 'screens.merchant.resetTitle', {
        code: secrets.code,
      })}
      onClose={() => close()}
      persistent
    >
      <p className="notice" role="note">
        {t('screens.merchant.secretsOnce')}
      </p>
      <dl className="secret-list">
        {rows.map((r) => (
          <div key={r.key} className="secret-row">
            <dt>{r.label}</dt>
            <dd>
              <code className="secret" data-secret={r.key}>
                {r.value}
              </code>
              <CopyButton text={r.value} label={r.label} />
            </dd>
          </div>
        ))}
      </dl>
      <div className="form-actions">
        {/* biome-ignore lint/a11y/noAutofocus: Escape is refused here, so Enter on this button is the keyboard's way out */}
        <button type="button" className="button primary" onClick={() => close()} autoFocus>
          {t('screens.merchant.secretsSaved')}
        </button>
      </div>
    </Modal>
  );
}
