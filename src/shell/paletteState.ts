import { atom } from 'nanostores';

export const $paletteOpen = atom(false);
/** What was typed after Ctrl-K while the palette's chunk was still loading; the palette starts from it. */
export const $paletteDraft = atom('');
$paletteOpen.listen((open) => {
  if (!open) $paletteDraft.set('');
});

let shellHasKeys = false;
/** The shell's dispatcher owns the keys while it is mounted. */
export function setShellHasKeys(has: boolean): void {
  shellHasKeys = has;
}

/**
 * Ctrl-K pressed between signing in and the shell's chunk arriving (the first thing a person does after
 * the password) opens the palette once the shell mounts, and what is typed meanwhile is its query; the
 * shell's own dispatcher does the same once it is there. Installed once, before the first render.
 */
export function catchPaletteKeysBeforeShell(signedIn: () => boolean): void {
  window.addEventListener('keydown', (e) => {
    if (shellHasKeys || !signedIn() || e.defaultPrevented || e.isComposing) return;
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
      e.preventDefault();
      $paletteOpen.set(true);
    } else if ($paletteOpen.get() && e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      $paletteDraft.set($paletteDraft.get() + e.key);
    }
  });
}
