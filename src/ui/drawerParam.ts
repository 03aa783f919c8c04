import { useState } from 'react';
import { useSearchParams } from 'wouter';

/**
 * The record a list's drawer shows, kept in the URL under `key` so that a link opens it: opening adds
 * a history entry, closing replaces it. `record` is what the drawer last reported while it is the one
 * the URL names: the palette's row actions act on it, never on a different row than the one on screen.
 * `also` keeps more of the row in the URL beside the key (the wallet a settlement belongs to).
 */
export function useDrawerParam<R>(
  key: string,
  idOf: (row: R) => string,
  also: Record<string, (row: R) => string> = {},
) {
  const [params, setParams] = useSearchParams();
  const value = params.get(key);
  const [shown, setShown] = useState<R | null>(null);
  const open = (row: R) =>
    setParams((p) => {
      const out = new URLSearchParams(p);
      out.set(key, idOf(row));
      for (const [name, of] of Object.entries(also)) out.set(name, of(row));
      return out;
    });
  const close = () =>
    setParams(
      (p) => {
        const out = new URLSearchParams(p);
        out.delete(key);
        for (const name of Object.keys(also)) out.delete(name);
        return out;
      },
      { replace: true },
    );
  const record = value !== null && shown !== null && idOf(shown) === value ? shown : null;
  return { value, open, close, record, setShown };
}
