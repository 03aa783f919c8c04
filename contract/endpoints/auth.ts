import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import {
  code6,
  email,
  empty,
  listOf,
  newPassword,
  nickname,
  noControlsButBreaks,
  okFlag,
  pagePaging,
  passwordInput,
  strictObject,
  userKind,
  username,
} from '../schemas.ts';

const deviceToken = z.optional(z.string().check(z.maxLength(600)));

/** One place the caller is signed in (its token is never answered, not even hashed). */
const sessionRow = z.object({
  createdAt: z.string(),
  lastSeenAt: z.string(),
  expiresAt: z.string(),
  ip: z.string(),
  userAgent: z.string(),
  /** The session this request came with. */
  current: z.boolean(),
});

/** A signed-in session: the token goes into the `admin-token` header. */
const session = z.object({
  token: z.string(),
  /** Present when the user asked to skip the second step on this device for 30 days. */
  deviceToken: z.optional(z.string()),
  /** The platform requires a Google Authenticator binding before anything else. */
  mustBindGoogle: z.boolean(),
});

const secondStep = z.enum(['google', 'email']);

type PasswordPair = { password?: string; newPassword?: string; confirmPassword: string };
const passwordsMatch = <T extends PasswordPair>() =>
  z.refine<T>((v) => (v.password ?? v.newPassword) === v.confirmPassword, {
    message: 'validation.passwordMismatch',
    path: ['confirmPassword'],
  });

export const auth = {
  login: endpoint({
    method: 'POST',
    path: '/auth/login',
    caller: 'public',
    input: strictObject({
      username,
      password: passwordInput,
      code: z.optional(z.union([code6, z.literal('')])),
      deviceToken,
    }),
    output: session,
  }),
  logout: endpoint({ method: 'POST', path: '/auth/logout', caller: 'session', input: empty, output: okFlag }),
  /** Ends every session of the caller, this one included, and forgets every remembered device. */
  logoutAll: endpoint({
    method: 'POST',
    path: '/auth/logoutAll',
    caller: 'session',
    input: empty,
    output: okFlag,
  }),
  /** The caller's own open sessions, the most recently used first: where the account is signed in. */
  sessions: endpoint({
    method: 'GET',
    path: '/auth/sessions',
    caller: 'session',
    input: z.object({ ...pagePaging(20) }),
    output: listOf(sessionRow),
  }),
  info: endpoint({
    method: 'GET',
    path: '/auth/info',
    caller: 'session',
    input: z.object({ token: z.optional(z.string()) }),
    output: z.object({
      id: z.number(),
      username: z.string(),
      name: z.string(),
      avatar: z.string(),
      introduction: z.string(),
      email: z.string(),
      kind: userKind,
      merchantId: z.nullable(z.number()),
      roles: z.array(z.string()),
      perms: z.array(z.string()),
      googleBound: z.boolean(),
      mustBindGoogle: z.boolean(),
      /** When this session's money session ends (ISO), or null when none is open. */
      moneyUntil: z.nullable(z.string()),
      /** The IANA zone business days are counted in (reports, settlements, T+N): named beside the times. */
      businessTimeZone: z.string(),
    }),
  }),
  /**
   * Opens this session's money session: one Google code (spent, as any) unlocks, for the
   * `money_session_minutes` parameter, the doors that take `session` for their code (`moneyCode`:
   * decisions on what already waits in a queue). Each decision is still logged; answers when it ends.
   */
  moneySessionOpen: endpoint({
    method: 'POST',
    path: '/auth/moneySession/open',
    caller: 'session',
    input: strictObject({ code: code6 }),
    output: z.object({ until: z.string() }),
  }),
  /** Ends this session's money session at once (the next decision asks for a code again). */
  moneySessionEnd: endpoint({
    method: 'POST',
    path: '/auth/moneySession/end',
    caller: 'session',
    input: empty,
    output: okFlag,
  }),
  loginPassword: endpoint({
    method: 'POST',
    path: '/v1/auth/login/password',
    caller: 'public',
    input: strictObject({ username, password: passwordInput, deviceToken }),
    /** errno 0 with a session when no second step is due; errno 1002 with `{ticket, step}` otherwise. */
    output: z.union([
      session,
      z.object({ ticket: z.string(), step: secondStep, sentTo: z.optional(z.string()) }),
    ]),
  }),
  loginGoogleCode: endpoint({
    method: 'POST',
    path: '/v1/auth/login/googleCode',
    caller: 'public',
    input: strictObject({
      ticket: z.string().check(z.minLength(1), z.maxLength(200)),
      code: code6,
      remember: z.optional(z.boolean()),
    }),
    output: session,
  }),
  loginEmailCode: endpoint({
    method: 'POST',
    path: '/v1/auth/login/emailCode',
    caller: 'public',
    input: strictObject({ ticket: z.string().check(z.minLength(1), z.maxLength(200)), code: code6 }),
    output: session,
  }),
  sendEmailCode: endpoint({
    method: 'GET',
    path: '/v1/auth/email/sendCode',
    caller: 'public',
    input: z.object({ username, purpose: z.enum(['reset', 'login']) }),
    /**
     * The same answer whether or not the account exists, has an e-mail address or is active, and whether
     * or not a code went out (at most one a minute): nothing here tells who exists.
     */
    output: okFlag,
  }),
  resetPassword: endpoint({
    method: 'POST',
    path: '/v1/auth/reset/password',
    caller: 'public',
    input: strictObject({ username, code: code6, password: newPassword, confirmPassword: z.string() }).check(
      passwordsMatch(),
    ),
    output: okFlag,
  }),
  changePassword: endpoint({
    method: 'POST',
    path: '/auth/password',
    caller: 'session',
    input: strictObject({ oldPassword: passwordInput, newPassword, confirmPassword: z.string() }).check(
      passwordsMatch(),
    ),
    output: okFlag,
  }),
  updateProfile: endpoint({
    method: 'POST',
    path: '/auth/profile',
    caller: 'session',
    input: strictObject({
      nickname: z.optional(nickname),
      email: z.optional(email),
      introduction: z.optional(z.string().check(z.maxLength(500), noControlsButBreaks)),
      /** The current password: needed when `email` changes (the address reset codes go to). */
      password: z.optional(passwordInput),
    }),
    output: okFlag,
  }),
  googleBindInfo: endpoint({
    method: 'GET',
    path: '/auth/google/bindInfo',
    caller: 'session',
    input: empty,
    output: z.object({
      bound: z.boolean(),
      secret: z.optional(z.string()),
      otpauthUrl: z.optional(z.string()),
      qr: z.optional(z.string()),
    }),
  }),
  googleBind: endpoint({
    method: 'POST',
    path: '/v1/auth/google/bind',
    caller: 'session',
    /** The current password too: a session alone must not bind its own key to the account. */
    input: strictObject({
      secret: z.string().check(z.regex(/^[A-Z2-7]{16,64}$/)),
      code: code6,
      password: passwordInput,
    }),
    output: okFlag,
  }),
  googleUnbind: endpoint({
    method: 'POST',
    path: '/v1/auth/google/unbind',
    caller: 'session',
    input: strictObject({ code: code6, password: passwordInput }),
    output: okFlag,
  }),
};
