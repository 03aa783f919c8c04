import { useT } from '../../lib/useT.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  orderNo: string;
  utr: string;
  close: (result?: unknown) => void;
}

/**
 * After paying with the callback lost: the payment exists only at the simulator, so the order stays
 * waiting until someone finds the UTR (UTR check) and supplements the order with it.
 */
export default function LostCallback({ orderNo, utr, close }: Props) {
  const t = useT();
  return (
    <Modal title={t('screens.simulator.lostTitle')} onClose={() => close()}>
      <p className="modal-text">{t('screens.simulator.lostText', { orderNo })}</p>
      <div className="sim-utr">
        <span className="muted">{t('screens.simulator.utr')}</span>
        <code className="secret" data-utr>
          {utr}
        </code>
        <CopyButton text={utr} label={t('screens.simulator.utr')} />
      </div>
      <div className="form-actions">
        {/* biome-ignore lint/a11y/noAutofocus: Enter closes it, as after any confirmation */}
        <button type="button" className="button primary" onClick={() => close()} autoFocus>
          {t('app.ok')}
        </button>
      </div>
    </Modal>
  );
}
