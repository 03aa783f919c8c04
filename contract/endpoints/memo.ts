/**
 * The system memo (OPERATIONS.md section 4): notices the platform writes for the dashboard, each to an
 * audience (platform users, merchants' users or everyone). Title and text are plain text: the console
 * shows them as text, never as HTML.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import {
  cursor,
  id,
  listOf,
  noControls,
  noControlsButBreaks,
  okFlag,
  pageSize,
  strictObject,
} from '../schemas.ts';

export const memoAudiences = ['platform', 'merchants', 'everyone'] as const;
export const memoAudience = z.enum(memoAudiences);

/** How many notices the dashboard shows: the pinned ones first, then the newest. */
export const noticesShown = 10;

const memoTitle = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(120), noControls);
/** Line breaks are kept; the console shows them as breaks in plain text. */
const memoBody = z.string().check(z.trim(), z.maxLength(4000), noControlsButBreaks);

export const memoRow = z.object({
  id: z.number(),
  title: z.string(),
  body: z.string(),
  pinned: z.boolean(),
  audience: memoAudience,
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const memo = {
  /** Every notice, newest first, for the platform's management screen. */
  list: endpoint({
    method: 'GET',
    path: '/memo/list',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: z.object({ pageSize, cursor, audience: z.optional(memoAudience) }),
    output: listOf(memoRow),
  }),
  create: endpoint({
    method: 'POST',
    path: '/memo/create',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({
      title: memoTitle,
      body: z._default(memoBody, ''),
      pinned: z._default(z.boolean(), false),
      audience: memoAudience,
    }),
    output: z.object({ id: z.number() }),
  }),
  update: endpoint({
    method: 'POST',
    path: '/memo/update',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({
      id,
      title: z.optional(memoTitle),
      body: z.optional(memoBody),
      pinned: z.optional(z.boolean()),
      audience: z.optional(memoAudience),
    }),
    output: okFlag,
  }),
  delete: endpoint({
    method: 'POST',
    path: '/memo/delete',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({ id }),
    output: okFlag,
  }),
  /**
   * The notices for the caller's dashboard: a platform user reads those for the platform or everyone, a
   * merchant's user those for merchants or everyone. Any signed-in user: a notice needs no permission.
   */
  notices: endpoint({
    method: 'GET',
    path: '/memo/notices',
    caller: 'session',
    input: z.object({}),
    output: z.object({ list: z.array(memoRow) }),
  }),
};
