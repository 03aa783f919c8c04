import { useEffect, useRef } from 'react';

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
