import { type Endpoint, needsPermission } from '../../../contract/endpoint.ts';
import { allEndpoints } from '../../../contract/index.ts';
import type { UserKind } from '../../../contract/schemas.ts';

/** The endpoints a user of `kind` can be granted: its own kind's and the shared ones. */
export function catalogueFor(kind: UserKind): Endpoint[] {
  return allEndpoints.filter((e) => needsPermission(e.caller) && (e.caller === 'both' || e.caller === kind));
}

/** True when `held` (a user's permissions) covers every one of `wanted`. `*` covers everything of the kind. */
export function covers(held: readonly string[], wanted: readonly string[]): boolean {
  if (held.includes('*')) return true;
  return wanted.every((p) => p !== '*' && held.includes(p));
}
