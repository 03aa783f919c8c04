import { useStore } from '@nanostores/react';
import { $language, t } from './i18n.ts';

/** The translator, re-rendering the caller when the language changes. */
export function useT(): typeof t {
  useStore($language);
  return t;
}

/** The translator's type, for the helpers a component hands its `t` to (column and totals builders). */
export type Translate = typeof t;
