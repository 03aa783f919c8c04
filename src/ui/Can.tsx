import { useStore } from '@nanostores/react';
import type { ReactNode } from 'react';
import { allows, type Endpoint } from '../../contract/index.ts';
import { $grants } from '../lib/session.ts';

/** The element-level guard: renders its children only when the user holds one of `needs` (never empty). */
export function Can({ needs, children }: { needs: readonly Endpoint[]; children: ReactNode }) {
  const grants = useStore($grants);
  if (needs.length === 0) throw new Error('Can needs a non-empty list of endpoints');
  return allows(grants, needs) ? children : null;
}
