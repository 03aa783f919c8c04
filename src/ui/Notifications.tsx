import { useStore } from '@nanostores/react';
import { AlertDialog } from 'radix-ui';
import {
  $alerts,
  $confirmation,
  $toasts,
  closeAlert,
  dismissToast,
  settleConfirmation,
} from '../lib/notify.ts';
import { useT } from '../lib/useT.ts';
import { Icon } from './Icon.tsx';

/** Toasts, alerts and confirmations of the whole console, rendered once at the root. */
export function Notifications() {
  const t = useT();
  const toasts = useStore($toasts);
  const alerts = useStore($alerts);
  const confirmation = useStore($confirmation);
  const current = alerts[0];
  return (
    <>
      <section className="toasts no-print" aria-live="polite" aria-label={t('app.notifications')}>
        {toasts.map((x) => (
          <div key={x.id} role={x.tone === 'error' ? 'alert' : 'status'} className={`toast toast-${x.tone}`}>
            <span>{x.text}</span>
            <button
              type="button"
              className="icon-button"
              aria-label={t('app.close')}
              onClick={() => dismissToast(x.id)}
            >
              <Icon name="close" size={14} />
            </button>
          </div>
        ))}
      </section>
      {current && (
        <AlertDialog.Root open onOpenChange={(open) => !open && closeAlert(current.id)}>
          <AlertDialog.Portal>
            <AlertDialog.Overlay className="overlay" />
            <AlertDialog.Content className="modal modal-alert">
              <AlertDialog.Title className="modal-title">{current.title}</AlertDialog.Title>
              <AlertDialog.Description className="modal-text">{current.text}</AlertDialog.Description>
              <div className="modal-actions">
                <AlertDialog.Action className="button primary">{t('app.ok')}</AlertDialog.Action>
              </div>
            </AlertDialog.Content>
          </AlertDialog.Portal>
        </AlertDialog.Root>
      )}
      {confirmation && !current && (
        <AlertDialog.Root open onOpenChange={(open) => !open && settleConfirmation(false)}>
          <AlertDialog.Portal>
            <AlertDialog.Overlay className="overlay" />
            <AlertDialog.Content className="modal modal-alert">
              <AlertDialog.Title className="modal-title">{confirmation.title}</AlertDialog.Title>
              <AlertDialog.Description className="modal-text">{confirmation.text}</AlertDialog.Description>
              <div className="modal-actions">
                <AlertDialog.Cancel className="button">{t('app.cancel')}</AlertDialog.Cancel>
                <AlertDialog.Action
                  className={`button ${confirmation.danger ? 'danger' : 'primary'}`}
                  onClick={() => settleConfirmation(true)}
                >
                  {confirmation.confirmLabel}
                </AlertDialog.Action>
              </div>
            </AlertDialog.Content>
          </AlertDialog.Portal>
        </AlertDialog.Root>
      )}
    </>
  );
}
