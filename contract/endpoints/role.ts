import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { id, listOf, okFlag, page, pageSize, shortText, strictObject } from '../schemas.ts';

const perms = z.array(z.string().check(z.minLength(1), z.maxLength(120))).check(z.maxLength(500));
const roleName = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(64));

export const roleSummary = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string(),
  builtin: z.boolean(),
  perms: z.array(z.string()),
  userCount: z.number(),
  updatedAt: z.string(),
});

export const permissionGroup = z.object({
  group: z.string(),
  title: z.string(),
  permissions: z.array(
    z.object({
      permission: z.string(),
      id: z.string(),
      method: z.string(),
      path: z.string(),
      description: z.string(),
    }),
  ),
});

export const role = {
  list: endpoint({
    method: 'GET',
    path: '/role/list',
    caller: 'both',
    input: z.object({ page, pageSize, name: z.optional(z.string().check(z.maxLength(64))) }),
    output: listOf(roleSummary),
  }),
  create: endpoint({
    method: 'POST',
    path: '/role/create',
    caller: 'both',
    input: strictObject({
      name: roleName,
      description: z._default(shortText, ''),
      perms: z._default(perms, []),
    }),
    output: z.object({ id: z.number() }),
  }),
  update: endpoint({
    method: 'POST',
    path: '/role/update',
    caller: 'both',
    input: strictObject({ id, name: z.optional(roleName), description: z.optional(shortText) }),
    output: okFlag,
  }),
  delete: endpoint({
    method: 'POST',
    path: '/role/delete',
    caller: 'both',
    input: strictObject({ id }),
    output: okFlag,
  }),
  /** The permission catalogue of the caller's kind, grouped and described; with `id`, that role's set too. */
  permissions: endpoint({
    method: 'GET',
    path: '/role/permissions',
    caller: 'both',
    input: z.object({ id: z.optional(id) }),
    output: z.object({ groups: z.array(permissionGroup), granted: z.optional(z.array(z.string())) }),
  }),
  setPermissions: endpoint({
    method: 'POST',
    path: '/role/permissions',
    caller: 'both',
    input: strictObject({ id, perms }),
    output: okFlag,
  }),
};
