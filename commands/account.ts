import { endpoints } from '../contract/index.ts';
import { action, screen } from './types.ts';

/** Pages anyone can open: sign-in, reset, the redirect helpers and the error pages. */
export const publicScreens = [
  screen({
    id: 'public.login',
    route: '/login',
    access: 'public',
    screen: () => import('../src/screens/public/Login.tsx'),
  }),
  screen({
    id: 'public.reset',
    route: '/reset',
    access: 'public',
    screen: () => import('../src/screens/public/Reset.tsx'),
  }),
  screen({
    id: 'public.authRedirect',
    route: '/auth-redirect',
    access: 'public',
    screen: () => import('../src/screens/public/AuthRedirect.tsx'),
  }),
  screen({
    id: 'public.redirect',
    route: '/redirect/*',
    access: 'public',
    screen: () => import('../src/screens/public/Redirect.tsx'),
  }),
  screen({
    id: 'public.notFound',
    route: '/404',
    access: 'public',
    screen: () => import('../src/screens/public/NotFound.tsx'),
  }),
  screen({
    id: 'public.unauthorized',
    route: '/401',
    access: 'public',
    screen: () => import('../src/screens/public/Unauthorized.tsx'),
  }),
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
  screen({
    id: 'auth.sessions',
    route: '/profile/sessions',
    group: 'security',
    icon: 'shield',
    shortcut: 'g S',
    needs: [endpoints.auth.sessions],
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

/** The signed-in user's own actions. */
export const accountActions = [logoutAllAction];
