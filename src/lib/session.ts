import { atom, computed } from 'nanostores';
import type { endpoints, Grants, Output } from '../../contract/index.ts';
import { removeToken } from './cookie.ts';
import { clearSessionLog } from './sessionLog.ts';

export type UserInfo = Output<typeof endpoints.auth.info>;

/** `unknown` until the stored token has been checked at start. */
export type SessionState = 'unknown' | 'signedIn' | 'signedOut';

export const $user = atom<UserInfo | null>(null);
export const $sessionState = atom<SessionState>('unknown');

export const $grants = computed($user, (user): Grants | null =>
  user ? { kind: user.kind, perms: new Set(user.perms) } : null,
);

/** Clears token, user info, roles and perms on this device only. */
export function localLogout(): void {
  removeToken();
  clearSessionLog();
  $user.set(null);
  $sessionState.set('signedOut');
}
