import { Dialog } from 'radix-ui';
import { type ReactNode, useState } from 'react';
import { useT } from '../lib/useT.ts';
import { Icon } from './Icon.tsx';
import { returnFocus } from './openingFocus.ts';

interface ModalProps {
  title: string;
  description?: string;
  onClose: () => void;
  children: ReactNode;
  /** `drawer` slides in from the right edge; `sheet` is a wide centred panel. */
  variant?: 'dialog' | 'drawer' | 'sheet';
  /** Escape and a click outside do not close it (what it shows cannot be shown again). */
  persistent?: boolean;
}

/** A modal frame over Radix Dialog: focus trapped, Escape closes, the keyboard belongs to it. */
export function Modal({ title, description, onClose, children, variant = 'dialog', persistent }: ModalProps) {
  const t = useT();
  // What had the focus when it opened (a table's row, a button): it gets it back on close, as in the
  // detail drawer; Radix's own return lands on the body once a table row re-rendered meanwhile.
  const [opener] = useState(() => document.activeElement as HTMLElement | null);
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content
          className={`modal modal-${variant}`}
          aria-describedby={description ? undefined : undefined}
          onCloseAutoFocus={(e) => returnFocus(e, opener)}
          {...(persistent
            ? {
                onEscapeKeyDown: (e: Event) => e.preventDefault(),
                onInteractOutside: (e: Event) => e.preventDefault(),
              }
            : {})}
        >
          <header className="modal-head">
            <Dialog.Title className="modal-title">{title}</Dialog.Title>
            <Dialog.Close className="icon-button" aria-label={t('app.close')}>
              <Icon name="close" />
            </Dialog.Close>
          </header>
          {description ? (
            <Dialog.Description className="modal-description">{description}</Dialog.Description>
          ) : (
            <Dialog.Description className="sr-only">{title}</Dialog.Description>
          )}
          <div className="modal-body">{children}</div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
