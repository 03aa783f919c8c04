import { useEffect, useRef } from 'react';
import { isTyping } from '../shell/keyboard.ts';

/**
 * Focuses the first element matching `selector` inside the returned ref's element once the dialog is
 * open. `autoFocus` is not enough for a dialog opened over another one (a drawer): it focuses during
 * the commit, before the new dialog's focus scope takes over, and the drawer's focus trap pulls the
 * focus back. A task later both scopes are settled.
 */
export function useOpeningFocus<T extends HTMLElement = HTMLFormElement>(
  selector = 'input, textarea, select',
  /** False while the dialog shows a spinner in place of its form: the focus waits for the form. */
  ready = true,
) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (!ready) return;
    const timer = window.setTimeout(() => ref.current?.querySelector<HTMLElement>(selector)?.focus(), 0);
    return () => window.clearTimeout(timer);
  }, [selector, ready]);
  return ref;
}

/**
 * A dialog's close (Radix's `onCloseAutoFocus`): the focus goes back to `opener`, the element that had
 * it when the dialog opened, if it is still on the page. Radix runs this a task after the dialog left
 * the page, and a key typed in between is handled first (a `/` that focused a list's filter): a field
 * that took the focus meanwhile keeps it.
 */
export function returnFocus(e: Event, opener: HTMLElement | null): void {
  e.preventDefault();
  if (isTyping(document.activeElement)) return;
  if (opener?.isConnected) opener.focus({ preventScroll: true });
}
