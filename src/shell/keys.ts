const isMac =
  typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

const names: Record<string, string> = {
  mod: isMac ? '⌘' : 'Ctrl',
  ArrowDown: '↓',
  ArrowUp: '↑',
  Enter: '↵',
  Delete: 'Del',
};

/**
 * The keys of a shortcut as shown in a <kbd>: `mod+k` → ["Ctrl", "K"], `g a` → ["G", "A"], `+ m` (the
 * create sequences) → ["+", "M"].
 */
export function keyCaps(shortcut: string): string[] {
  return (
    shortcut
      .split(' ')
      .flatMap((part) => (part === '+' ? [part] : part.split('+')))
      .filter(Boolean)
      // An upper-case letter is typed with Shift: `S` reads "Shift S", never mistaken for another action's `s`.
      .flatMap((k) =>
        /^[A-Z]$/.test(k) ? ['Shift', k] : [names[k] ?? (k.length === 1 ? k.toUpperCase() : k)],
      )
  );
}
