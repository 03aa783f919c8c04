import { atom } from 'nanostores';

export type ToastTone = 'success' | 'error' | 'warning' | 'info';

export interface Toast {
  id: number;
  tone: ToastTone;
  text: string;
  /** A button beside the text (Undo), with the key that does the same (`mod+z`). */
  action?: { label: string; run: () => void; shortcut?: string };
}

export interface Alert {
  id: number;
  title: string;
  text: string;
  resolve: () => void;
}

export interface Confirmation {
  id: number;
  title: string;
  text: string;
  danger: boolean;
  confirmLabel: string;
  resolve: (ok: boolean) => void;
}

let nextId = 1;

export const $toasts = atom<Toast[]>([]);
export const $alerts = atom<Alert[]>([]);
export const $confirmation = atom<Confirmation | null>(null);

/** Shows a short message; errors stay 2 s, network failures 5 s (the spec's timings). Answers its id. */
export function toast(
  tone: ToastTone,
  text: string,
  ms = tone === 'error' ? 2000 : 2500,
  action?: Toast['action'],
): number {
  const id = nextId++;
  $toasts.set([...$toasts.get(), { id, tone, text, ...(action ? { action } : {}) }]);
  setTimeout(() => dismissToast(id), ms);
  return id;
}

export function dismissToast(id: number): void {
  $toasts.set($toasts.get().filter((x) => x.id !== id));
}

/** A modal message the user has to acknowledge; resolves when dismissed. */
export function alert(title: string, text: string): Promise<void> {
  return new Promise((resolve) => {
    const id = nextId++;
    $alerts.set([...$alerts.get(), { id, title, text, resolve }]);
  });
}

export function closeAlert(id: number): void {
  const found = $alerts.get().find((a) => a.id === id);
  $alerts.set($alerts.get().filter((a) => a.id !== id));
  found?.resolve();
}

export function confirm(options: Omit<Confirmation, 'id' | 'resolve'>): Promise<boolean> {
  $confirmation.get()?.resolve(false);
  return new Promise((resolve) => {
    $confirmation.set({ ...options, id: nextId++, resolve });
  });
}

export function settleConfirmation(ok: boolean): void {
  const current = $confirmation.get();
  $confirmation.set(null);
  current?.resolve(ok);
}
