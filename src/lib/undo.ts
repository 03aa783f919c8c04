import { atom } from 'nanostores';
import { ApiError } from './api.ts';
import { t } from './i18n.ts';
import { dismissToast, toast } from './notify.ts';
import { queryClient } from './query.ts';
import { $sessionLog, actingAs, markUndone, newestEntry } from './sessionLog.ts';

/** How long an undo is offered: its toast's life, Ctrl-Z's and the session log's button's. */
export const undoWindowMs = 10_000;

interface Offer {
  toastId: number;
  run: () => unknown;
  /** The session log's entry it takes back (none for a change that wrote nothing: columns, filters). */
  entry: number | undefined;
}

/** The one undo on offer: the newest undoable action's (an older one's is withdrawn). */
export const $undoOffer = atom<Offer | null>(null);

/**
 * Says `text` in a toast with Undo for ten seconds; Undo, Ctrl-Z meanwhile or the session log's button
 * runs `undo` (an endpoint's own reverse: a reopen, the previous status, the notice written again), then
 * re-reads the screen. Money that moved is never offered here: it is reversed by its own entry, if at all.
 * `wrote` false: the change was the screen's own (columns, filters) and took no write of the log's.
 */
export function offerUndo(text: string, undo: () => unknown, wrote = true): void {
  const previous = $undoOffer.get();
  if (previous) dismissToast(previous.toastId);
  const toastId = toast('success', text, undoWindowMs, {
    label: t('app.undo.action'),
    run: () => void undoLast(),
    shortcut: 'mod+z',
  });
  const offer: Offer = { toastId, run: undo, entry: wrote ? newestEntry() : undefined };
  $undoOffer.set(offer);
  // The offer ends with its toast.
  setTimeout(() => {
    if ($undoOffer.get() === offer) $undoOffer.set(null);
  }, undoWindowMs);
}

/** Runs the undo on offer; says so when there is none (Ctrl-Z with nothing to take back). */
export async function undoLast(): Promise<boolean> {
  const offer = $undoOffer.get();
  if (!offer) {
    toast('info', t('app.undo.nothing'));
    return false;
  }
  $undoOffer.set(null);
  dismissToast(offer.toastId);
  // Its writes are logged as the undo of the entry it takes back.
  const undone = $sessionLog.get().find((e) => e.id === offer.entry);
  const before = actingAs(undone ? { action: undone.action, reverses: undone.id } : undefined);
  try {
    await offer.run();
  } catch (failure) {
    // api() has shown the refusal (the record moved meanwhile: 409).
    if (failure instanceof ApiError) return false;
    throw failure;
  } finally {
    actingAs(before);
  }
  if (offer.entry !== undefined) markUndone(offer.entry);
  toast('success', t('app.undo.done'));
  void queryClient.invalidateQueries();
  return true;
}
