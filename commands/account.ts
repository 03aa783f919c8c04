import { endpoints } from '../contract/index.ts';
import { endpointScreen, openDialog } from './builders.ts';
import { action, type ScreenLoader, screen } from './types.ts';

/** A page anyone can open, without signing in: never in the menus or the palette. */
const publicScreen = (id: string, route: string, load: ScreenLoader) =>
  screen({ id, route, access: 'public', screen: load });

/** Pages anyone can open: sign-in, reset, the redirect helpers and the error pages. */
export const publicScreens = [
  publicScreen('public.login', '/login', () => import('../src/screens/public/Login.tsx')),
  publicScreen('public.reset', '/reset', () => import('../src/screens/public/Reset.tsx')),
  publicScreen(
    'public.authRedirect',
    '/auth-redirect',
    () => import('../src/screens/public/AuthRedirect.tsx'),
  ),
  publicScreen('public.redirect', '/redirect/*', () => import('../src/screens/public/Redirect.tsx')),
  publicScreen('public.notFound', '/404', () => import('../src/screens/public/NotFound.tsx')),
  publicScreen('public.unauthorized', '/401', () => import('../src/screens/public/Unauthorized.tsx')),
];

/** The signed-in user's own screens. */
export const accountScreens = [
  screen({
    id: 'home.dashboard',
    route: '/dashboard',
    icon: 'home',
    shortcut: 'g d',
    screen: () => import('../src/screens/dashboard/Dashboard.tsx'),
  }),
  screen({
    id: 'auth.google',
    route: '/code',
    group: 'security',
    icon: 'key',
    shortcut: 'g c',
    needs: [endpoints.auth.googleBindInfo],
    screen: () => import('../src/screens/account/GoogleAuth.tsx'),
  }),
  endpointScreen([endpoints.auth.sessions], {
    route: '/profile/sessions',
    group: 'security',
    icon: 'shield',
    shortcut: 'g S',
    screen: () => import('../src/screens/account/Sessions.tsx'),
  }),
  screen({
    id: 'auth.password',
    route: '/profile/password',
    group: 'security',
    hidden: true,
    icon: 'lock',
    shortcut: 'g p',
    screen: () => import('../src/screens/account/ChangePassword.tsx'),
  }),
];

/**
 * Signing out everywhere, for a lost device or a session that may be in other hands: every session ends,
 * this one too, and no remembered device skips the second step any more.
 */
export const logoutAllAction = action({
  id: 'auth.logoutAll',
  icon: 'logout',
  needs: [endpoints.auth.logoutAll],
  confirm: { danger: true },
  run: async (c) => {
    await c.call(endpoints.auth.logoutAll, {});
    c.toast('success', c.t('screens.password.signedOutAll'));
    c.shell.logout();
  },
});

/**
 * The money session (docs/SECURITY.md): one Google code unlocks a few minutes of queue decisions without a
 * code each; the same dialog says until when, ends it at once, or renews it.
 */
export const moneySessionAction = action({
  id: 'auth.moneySession',
  icon: 'key',
  shortcut: 'M',
  needs: [endpoints.auth.moneySessionOpen],
  run: openDialog(() => import('../src/screens/account/MoneySessionDialog.tsx')),
});

/** The signed-in user's own actions. */
export const accountActions = [logoutAllAction, moneySessionAction];
