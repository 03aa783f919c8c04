/**
 * A merchant's users as the platform manages them (OPERATIONS.md section 4): listed per merchant,
 * disabled or enabled, their password or Google key reset. Each change ends the user's sessions where it
 * takes access away, is logged and is told to the user by e-mail. The resets weaken what guards a
 * merchant's money (its users' second factor): they take the operator's Google code.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { code6, cursor, id, listOf, pageSize, strictObject, userStatus } from '../schemas.ts';
import { adminUser } from './admin.ts';

/** What a write answers: whether the user was told by e-mail (not when no address is on file). */
const told = z.object({ ok: z.literal(true), mailed: z.boolean() });

export const merchantUser = {
  list: endpoint({
    method: 'GET',
    path: '/merchantUser/list',
    caller: 'platform',
    input: z.object({
      merchantId: id,
      pageSize,
      cursor,
      username: z.optional(z.string().check(z.maxLength(64))),
      status: z.optional(userStatus),
    }),
    output: listOf(adminUser),
  }),
  /** Signs the user out everywhere and refuses its sign-ins; a merchant's last owner stays (1020). */
  disable: endpoint({
    method: 'POST',
    path: '/merchantUser/disable',
    caller: 'platform',
    input: strictObject({ id }),
    output: told,
  }),
  enable: endpoint({
    method: 'POST',
    path: '/merchantUser/enable',
    caller: 'platform',
    input: strictObject({ id }),
    output: told,
  }),
  /**
   * Makes the current password stop working and ends the user's sessions; the e-mail sends the user to
   * the sign-in page's password reset (an e-mail code), so no password is ever chosen or seen by the
   * platform. Needs an e-mail address on file (422 otherwise).
   */
  resetPassword: endpoint({
    method: 'POST',
    path: '/merchantUser/resetPassword',
    caller: 'platform',
    input: strictObject({ id, code: code6 }),
    output: told,
  }),
  /** Clears the user's Google key (bound again at the next sign-in) and ends its sessions. */
  resetGoogle: endpoint({
    method: 'POST',
    path: '/merchantUser/resetGoogle',
    caller: 'platform',
    input: strictObject({ id, code: code6 }),
    output: told,
  }),
};
