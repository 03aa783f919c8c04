/**
 * The one permission rule the server, the console and the role catalogue read: kinds, `*`, the super
 * administrators' endpoints no role can grant, and the spec's "any one of the list" rule.
 */
import { describe, expect, it } from 'vitest';
import { allEndpoints, endpoints } from './index.ts';
import { allows, type Grants, grantable, mayCall } from './permissions.ts';

const as = (kind: Grants['kind'], ...perms: string[]): Grants => ({ kind, perms: new Set(perms) });
const platformOnly = endpoints.merchant.list;
const merchantOnly = endpoints.merchantPayout.create;
const shared = endpoints.merchantOrder.list;
const superAdminOnly = endpoints.mailOutbox.list;

describe('mayCall', () => {
  it('gives `*` everything of its own kind and nothing of the other', () => {
    expect(mayCall(as('platform', '*'), platformOnly)).toBe(true);
    expect(mayCall(as('platform', '*'), shared)).toBe(true);
    expect(mayCall(as('platform', '*'), merchantOnly)).toBe(false);
    expect(mayCall(as('merchant', '*'), merchantOnly)).toBe(true);
    expect(mayCall(as('merchant', '*'), shared)).toBe(true);
    expect(mayCall(as('merchant', '*'), platformOnly)).toBe(false);
  });

  it("needs the endpoint's own permission otherwise, and a kind that may hold it", () => {
    expect(mayCall(as('platform', shared.permission), shared)).toBe(true);
    expect(mayCall(as('merchant', shared.permission), shared)).toBe(true);
    expect(mayCall(as('platform', platformOnly.permission), shared)).toBe(false);
    expect(mayCall(as('merchant', platformOnly.permission), platformOnly)).toBe(false);
    expect(mayCall(as('platform', merchantOnly.permission), merchantOnly)).toBe(false);
  });

  it("lets only a platform `*` reach a super administrators' endpoint, never its own permission", () => {
    expect(mayCall(as('platform', '*'), superAdminOnly)).toBe(true);
    expect(mayCall(as('platform', superAdminOnly.permission), superAdminOnly)).toBe(false);
    expect(mayCall(as('merchant', '*'), superAdminOnly)).toBe(false);
  });

  it('lets any signed-in user reach its own account, and none a signed-out endpoint', () => {
    expect(mayCall(as('merchant'), endpoints.auth.changePassword)).toBe(true);
    expect(mayCall(as('platform'), endpoints.auth.info)).toBe(true);
    expect(mayCall(as('platform', '*'), endpoints.auth.login)).toBe(false);
  });

  it('reads a list of permissions (the server) as a set (the console) does', () => {
    const list: Grants = { kind: 'platform', perms: [shared.permission] };
    expect(mayCall(list, shared)).toBe(true);
    expect(mayCall(list, platformOnly)).toBe(false);
    expect(mayCall({ kind: 'platform', perms: ['*'] }, superAdminOnly)).toBe(true);
  });
});

describe('allows', () => {
  it('fails closed without a user', () => {
    expect(allows(null, [])).toBe(false);
    expect(allows(undefined, undefined)).toBe(false);
  });

  it('allows an empty or absent list to anyone signed in', () => {
    expect(allows(as('merchant'), [])).toBe(true);
    expect(allows(as('platform'), undefined)).toBe(true);
  });

  it('allows when the user may call any one of the list', () => {
    const g = as('platform', shared.permission);
    expect(allows(g, [platformOnly, shared])).toBe(true);
    expect(allows(g, [platformOnly, merchantOnly])).toBe(false);
  });
});

describe('grants declared on endpoints', () => {
  it('name only kinds whose roles can hold the endpoint, each role once', () => {
    for (const e of allEndpoints) {
      for (const [kind, roles] of Object.entries(e.grants ?? {})) {
        expect(grantable(e, kind as Grants['kind']), `${e.id} granted to ${kind}`).toBe(true);
        expect(new Set(roles).size, `${e.id} ${kind}`).toBe(roles.length);
      }
    }
  });
});
