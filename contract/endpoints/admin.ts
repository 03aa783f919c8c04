import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import {
  adminPassword,
  cursor,
  email,
  id,
  listOf,
  nickname,
  okFlag,
  page,
  pageSize,
  strictObject,
  username,
  userStatus,
} from '../schemas.ts';

const roleIds = z.array(id).check(z.maxLength(50));

export const adminUser = z.object({
  id: z.number(),
  username: z.string(),
  nickname: z.string(),
  email: z.string(),
  status: userStatus,
  merchantId: z.nullable(z.number()),
  roles: z.array(z.object({ id: z.number(), name: z.string() })),
  googleBound: z.boolean(),
  lastLoginAt: z.nullable(z.string()),
  createdAt: z.string(),
});

/** Administrators: the users of the caller's own kind (and, for merchant users, its own merchant). */
export const admin = {
  list: endpoint({
    method: 'GET',
    path: '/admin/list',
    caller: 'both',
    input: z.object({
      page,
      pageSize,
      cursor,
      username: z.optional(z.string().check(z.maxLength(64))),
      status: z.optional(userStatus),
    }),
    output: listOf(adminUser),
  }),
  create: endpoint({
    method: 'POST',
    path: '/admin/create',
    caller: 'both',
    input: strictObject({
      username,
      nickname,
      password: adminPassword,
      email: z.optional(z.union([email, z.literal('')])),
      roleIds: z._default(roleIds, []),
    }),
    output: z.object({ id: z.number() }),
  }),
  update: endpoint({
    method: 'POST',
    path: '/admin/update',
    caller: 'both',
    input: strictObject({
      id,
      nickname: z.optional(nickname),
      email: z.optional(z.union([email, z.literal('')])),
      password: z.optional(adminPassword),
      status: z.optional(userStatus),
      roleIds: z.optional(roleIds),
    }),
    output: okFlag,
  }),
  delete: endpoint({
    method: 'POST',
    path: '/admin/delete',
    caller: 'both',
    input: strictObject({ id }),
    output: okFlag,
  }),
  /** Clears another user's Google Authenticator key so that they bind a new one (rebind). */
  resetGoogle: endpoint({
    method: 'POST',
    path: '/admin/resetGoogle',
    caller: 'both',
    input: strictObject({ id }),
    output: okFlag,
  }),
};
