import { useStore } from '@nanostores/react';
import { AlertDialog } from 'radix-ui';
import type { ReactNode } from 'react';
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
        <Alert title={current.title} text={current.text} onDismiss={() => closeAlert(current.id)}>
          <AlertDialog.Action className="button primary">{t('app.ok')}</AlertDialog.Action>
        </Alert>
      )}
      {confirmation && !current && (
        <Alert
          title={confirmation.title}
          text={confirmation.text}
          onDismiss={() => settleConfirmation(false)}
        >
          <AlertDialog.Cancel className="button">{t('app.cancel')}</AlertDialog.Cancel>
          <AlertDialog.Action
            className={`button ${confirmation.danger ? 'danger' : 'primary'}`}
            onClick={() => settleConfirmation(true)}
          >
            {confirmation.confirmLabel}
          </AlertDialog.Action>
        </Alert>
      )}
    </>
  );
}

/** One open alert dialog: its title, its text and its buttons; closing it any other way dismisses it. */
function Alert({
  title,
  text,
  onDismiss,
  children,
}: {
  title: string;
  text: string;
  onDismiss: () => void;
  children: ReactNode;
}) {
  return (
    <AlertDialog.Root open onOpenChange={(open) => !open && onDismiss()}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="overlay" />
        <AlertDialog.Content className="modal modal-alert">
          <AlertDialog.Title className="modal-title">{title}</AlertDialog.Title>
          <AlertDialog.Description className="modal-text">{text}</AlertDialog.Description>
          <div className="modal-actions">{children}</div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
