import type * as z from 'zod/mini';

/**
 * Who may call an endpoint.
 * - `public`: anyone, no session.
 * - `session`: any signed-in user, for their own account (no permission to hold).
 * - `platform` / `merchant`: users of that kind holding the endpoint's permission.
 * - `both`: users of either kind holding the permission, each confined to its own kind and merchant.
 * - `superAdmin`: platform users holding `*` only. Such an endpoint is in no role catalogue, so no role
 *   can grant it (the mail outbox: its codes sign anyone in as anyone).
 */
export type Caller = 'public' | 'session' | 'platform' | 'merchant' | 'both' | 'superAdmin';

export type Method = 'GET' | 'POST';

export interface EndpointDef<I extends z.ZodMiniType, O extends z.ZodMiniType> {
  method: Method;
  /** Path below `/api`, in the spec's `/{resource}/{verb}` style. */
  path: string;
  caller: Caller;
  input: I;
  output: O;
  /** Largest request body accepted, in bytes (default 1 MiB): for uploads. */
  maxBodyBytes?: number;
  /** The answer is a file (an export), streamed with its own content type; errors still come as the envelope. */
  download?: true;
}

/** One API endpoint. Its description lives in the locales under `endpoints.<id>`. */
export interface Endpoint<I extends z.ZodMiniType = z.ZodMiniType, O extends z.ZodMiniType = z.ZodMiniType>
  extends EndpointDef<I, O> {
  /** `{METHOD} {path}`: the permission string a role grants. */
  permission: string;
  /** Dotted registry key (`admin.list`), assigned when the registry is assembled. */
  id: string;
  /** Permission group: the registry area the endpoint is declared in. */
  group: string;
}

export type Input<E extends Endpoint> = z.input<E['input']>;
export type Parsed<E extends Endpoint> = z.output<E['input']>;
export type Output<E extends Endpoint> = z.output<E['output']>;

export function endpoint<I extends z.ZodMiniType, O extends z.ZodMiniType>(
  def: EndpointDef<I, O>,
): Endpoint<I, O> {
  return { ...def, permission: `${def.method} ${def.path}`, id: '', group: '' };
}

/** True when a user of `kind` may ever call an endpoint of this caller kind. */
export function kindMayCall(caller: Caller, kind: 'platform' | 'merchant'): boolean {
  return (
    caller === 'both' ||
    caller === kind ||
    caller === 'session' ||
    (caller === 'superAdmin' && kind === 'platform')
  );
}

/** True when the endpoint needs a permission (as opposed to public or any signed-in user). */
export function needsPermission(caller: Caller): boolean {
  return caller === 'platform' || caller === 'merchant' || caller === 'both' || caller === 'superAdmin';
}

/**
 * True when a signed-in user of `kind`, holding the permissions `holds` answers for, may call the
 * endpoint: the one check the server and the console both make.
 */
export function grantsCall(
  endpoint: Pick<Endpoint, 'caller' | 'permission'>,
  kind: 'platform' | 'merchant',
  holds: (permission: string) => boolean,
): boolean {
  if (!kindMayCall(endpoint.caller, kind)) return false;
  if (!needsPermission(endpoint.caller)) return true;
  if (endpoint.caller === 'superAdmin') return holds('*');
  return holds('*') || holds(endpoint.permission);
}
