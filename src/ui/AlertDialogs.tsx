import { useStore } from '@nanostores/react';
import { AlertDialog } from 'radix-ui';
import { $alerts, $confirmation, closeAlert, settleConfirmation } from '../lib/notify.ts';
import { useT } from '../lib/useT.ts';

/** The alert or confirmation on top (alerts first), as a modal dialog. */
export default function AlertDialogs() {
  const t = useT();
  const alerts = useStore($alerts);
  const confirmation = useStore($confirmation);
  const current = alerts[0];
  return (
    <>
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
