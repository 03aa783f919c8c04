import { endpoints } from '../../contract/index.ts';
import { api } from './api.ts';
import { getToken, setToken } from './cookie.ts';
import { t } from './i18n.ts';
import { alert } from './notify.ts';
import { $sessionState, $user, localLogout, type UserInfo } from './session.ts';
import { $businessTimeZone } from './timeZone.ts';

const deviceKey = (username: string) => `console-device:${username.trim().toLowerCase()}`;

/** The server-signed "skip verification for 30 days" token of this device, per username. */
export function deviceTokenFor(username: string): string | undefined {
  if (!username.trim()) return undefined;
  return localStorage.getItem(deviceKey(username)) ?? undefined;
}

export function rememberDevice(username: string, token: string | undefined): void {
  if (token) localStorage.setItem(deviceKey(username), token);
}

/** Stores the token and fetches who the user is; the shell builds its routes from the answer. */
export async function startSession(token: string): Promise<UserInfo | null> {
  setToken(token);
  return loadUser();
}

/**
 * Reads the signed-in user. An empty perms list is refused (the spec's "perms must be a non-empty
 * array"): local logout with the server's message or a generic one.
 */
export async function loadUser(): Promise<UserInfo | null> {
  const token = getToken();
  if (!token) {
    $sessionState.set('signedOut');
    return null;
  }
  let info: UserInfo;
  try {
    // A stale cookie at start is not worth an alert: the login page says enough.
    info = await api(endpoints.auth.info, {}, { quiet: [501, 506] });
  } catch {
    localLogout();
    return null;
  }
  if (!Array.isArray(info.perms) || info.perms.length === 0) {
    localLogout();
    await alert(t('app.errors.title'), t('app.errors.permsEmpty'));
    return null;
  }
  $user.set(info);
  $businessTimeZone.set(info.businessTimeZone);
  $sessionState.set('signedIn');
  return info;
}

/** Logs out on the server (best effort) and locally. */
export async function logout(): Promise<void> {
  try {
    if (getToken()) await api(endpoints.auth.logout, {}, { quiet: [501, 506] });
  } catch {
    // The local logout below is what matters; the token expires on the server anyway.
  }
  localLogout();
}
