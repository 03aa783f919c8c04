import { allEndpoints, type Endpoint, grantable } from '../../../contract/index.ts';
import type { UserKind } from '../../../contract/schemas.ts';

/** The endpoints a role of `kind` can be granted: its own kind's and the shared ones. */
export function catalogueFor(kind: UserKind): Endpoint[] {
  return allEndpoints.filter((e) => grantable(e, kind));
}

/** Each kind's catalogue as permission strings, built once (the role list reads it for every row). */
const catalogueSets: Record<UserKind, ReadonlySet<string>> = {
  platform: new Set(catalogueFor('platform').map((e) => e.permission)),
  merchant: new Set(catalogueFor('merchant').map((e) => e.permission)),
};

/** Every permission a role of either kind can be granted. */
const inSomeCatalogue = new Set([...catalogueSets.platform, ...catalogueSets.merchant]);

/**
 * True when `held` (a user's permissions) covers every one of `wanted`. `*` covers everything of the kind;
 * a stored permission no catalogue has any more grants nothing, so it needs no covering.
 */
export function covers(held: readonly string[], wanted: readonly string[]): boolean {
  if (held.includes('*')) return true;
  return wanted.every((p) => p !== '*' && (held.includes(p) || !inSomeCatalogue.has(p)));
}

/**
 * A role's stored permissions that still grant something to `kind`: `*` and its catalogue's. One that left
 * the catalogue (the mail outbox, now super administrators' only) grants nothing and is not shown, so a
 * role saved back from the editor drops it.
 */
export function stillGranted(kind: UserKind, perms: readonly string[]): string[] {
  const known = catalogueSets[kind];
  return perms.filter((p) => p === '*' || known.has(p));
}
