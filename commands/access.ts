import { type Endpoint, grantsCall } from '../contract/index.ts';

/** The signed-in user's kind and granted permissions, as the checks read them. */
export interface Grants {
  kind: 'platform' | 'merchant';
  perms: ReadonlySet<string>;
}

/** True when the user may call the endpoint: the right kind, and the permission (or `*`) when one is needed. */
export function mayCall(grants: Grants, endpoint: Endpoint): boolean {
  return grantsCall(endpoint, grants.kind, (p) => grants.perms.has(p));
}

/**
 * The spec's rule: allowed when the list is empty or the user holds at least one of it. Fails closed:
 * nobody signed in, nothing allowed.
 */
export function allows(grants: Grants | null | undefined, needs: readonly Endpoint[] | undefined): boolean {
  if (!grants) return false;
  if (!needs || needs.length === 0) return true;
  return needs.some((endpoint) => mayCall(grants, endpoint));
}
