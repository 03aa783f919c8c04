/**
 * The permission rule, once: the server's check before every handler, the console's commands and guards,
 * and the role catalogue all read it. Pure, so the console can import it.
 */
import type { Caller, Endpoint } from './endpoint.ts';
import type { UserKind } from './schemas.ts';

/** What a permission check reads: the signed-in user's kind and the permissions its roles grant. */
export interface Grants {
  kind: UserKind;
  /** Permission strings (`{METHOD} {path}`); `*` grants everything of the user's kind. */
  perms: ReadonlySet<string> | readonly string[];
}

const holds = (grants: Grants, permission: string) =>
  'has' in grants.perms ? grants.perms.has(permission) : grants.perms.includes(permission);

/** True when the endpoint needs a permission (as opposed to public or any signed-in user). */
export function needsPermission(caller: Caller): boolean {
  return caller === 'platform' || caller === 'merchant' || caller === 'both' || caller === 'superAdmin';
}

/**
 * True when a role of `kind` can hold the endpoint's permission: the kind's role catalogue. Public and
 * session endpoints need none; `superAdmin` ones are in no catalogue, so only `*` reaches them.
 */
export function grantable(endpoint: Pick<Endpoint, 'caller'>, kind: UserKind): boolean {
  return endpoint.caller === 'both' || endpoint.caller === kind;
}

/** True when the user may call the endpoint: the right kind, and its permission (or `*`) where one is needed. */
export function mayCall(grants: Grants, endpoint: Pick<Endpoint, 'caller' | 'permission'>): boolean {
  switch (endpoint.caller) {
    // For the signed-out: a signed-in user never needs one.
    case 'public':
      return false;
    case 'session':
      return true;
    case 'superAdmin':
      return grants.kind === 'platform' && holds(grants, '*');
    default:
      return grantable(endpoint, grants.kind) && (holds(grants, '*') || holds(grants, endpoint.permission));
  }
}

/**
 * The spec's rule: allowed when `needs` is empty or the user may call at least one of it. Fails closed:
 * nobody signed in, nothing allowed.
 */
export function allows(
  grants: Grants | null | undefined,
  needs: readonly Pick<Endpoint, 'caller' | 'permission'>[] | undefined,
): boolean {
  if (!grants) return false;
  if (!needs || needs.length === 0) return true;
  return needs.some((endpoint) => mayCall(grants, endpoint));
}

/** Built-in roles of each kind, seeded in this order for the platform and for every new merchant. */
export const builtinRoleKeys = {
  platform: ['superAdmin', 'operator', 'finance', 'auditor'],
  merchant: ['owner', 'finance', 'operator', 'developer'],
} as const satisfies Record<UserKind, readonly string[]>;

/** The built-in role of each kind holding `*`: it is never named in a grant. */
export const administratorRole = { platform: 'superAdmin', merchant: 'owner' } as const satisfies Record<
  UserKind,
  string
>;

/** A built-in role of `K` that an endpoint can name in its `grants`. */
export type GrantedRole<K extends UserKind> = Exclude<
  (typeof builtinRoleKeys)[K][number],
  (typeof administratorRole)[K]
>;

/**
 * The built-in roles, per kind, seeded with an endpoint's permission; declared on the endpoint so that a
 * new endpoint is placed in the roles where it is written. The platform's auditor holds every GET of its
 * catalogue without being named; a read the spec makes a POST names it.
 */
export type RoleGrants = { [K in UserKind]?: readonly GrantedRole<K>[] };
