import type * as z from 'zod/mini';
import type { RoleGrants } from './permissions.ts';

/**
 * Who may call an endpoint.
 * - `public`: anyone, no session.
 * - `session`: any signed-in user, for their own account (no permission to hold).
 * - `platform` / `merchant`: users of that kind holding the endpoint's permission.
 * - `both`: users of either kind holding the permission, each confined to its own kind and merchant.
 * - `superAdmin`: platform users holding `*` only. Such an endpoint is in no role catalogue, so no role
 *   can grant it (the mail outbox: its codes sign anyone in as anyone).
 * The rule reading it is `mayCall` in `permissions.ts`.
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
  /** The built-in roles seeded with this endpoint's permission (the rule is in `permissions.ts`). */
  grants?: RoleGrants;
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
