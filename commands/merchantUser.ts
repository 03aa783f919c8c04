import { endpoints, type Output } from '../contract/index.ts';
import { endpointRowAction, endpointScreen, listLink } from './builders.ts';
import type { Command, Contexts, RunContext } from './types.ts';

const { merchantUser, log } = endpoints;

const resetDialog = () => import('../src/screens/merchantUser/ResetDialog.tsx');

type Told = Output<typeof merchantUser.disable>;
type User = Contexts['merchantUser'];

/** Says whether the user was told by e-mail (no address on file: not told). */
function done(c: RunContext, username: string, told: Told | undefined) {
  if (!told) return;
  c.toast(
    told.mailed ? 'success' : 'warning',
    c.t(told.mailed ? 'screens.merchantUser.mailed' : 'screens.merchantUser.notMailed', { username }),
  );
  c.refresh();
}

/** A change the server makes and tells the user of. */
const change =
  (endpoint: typeof merchantUser.disable | typeof merchantUser.enable) => async (c: RunContext, user: User) =>
    done(c, user.username, await c.call(endpoint, { id: user.id }));

/** A reset in its dialog, which tells the user of it. */
const reset = (which: 'password' | 'google') => async (c: RunContext, user: User) =>
  done(c, user.username, (await c.dialog(resetDialog, { user, which })) as Told);

/**
 * A merchant's users as the platform manages them: reached from a merchant's row (`u`) or the palette,
 * each change told to the user by e-mail.
 */
export const merchantUserCommands: readonly Command[] = [
  endpointScreen([merchantUser.list], {
    route: '/merchant/users',
    group: 'business',
    icon: 'users',
    shortcut: 'g U',
    screen: () => import('../src/screens/merchantUser/MerchantUserScreen.tsx'),
  }),
  listLink(
    'merchant',
    'merchant.users',
    merchantUser.list,
    { icon: 'users', shortcut: 'u' },
    (target) => `/merchant/users?merchantId=${target.id}`,
  ),
  endpointRowAction('merchantUser', merchantUser.disable, {
    icon: 'power',
    shortcut: 's',
    when: (user) => user.status === 'active',
    confirm: { danger: true },
    run: change(merchantUser.disable),
  }),
  endpointRowAction('merchantUser', merchantUser.enable, {
    icon: 'power',
    shortcut: 's',
    when: (user) => user.status === 'disabled',
    confirm: {},
    run: change(merchantUser.enable),
  }),
  endpointRowAction('merchantUser', merchantUser.resetPassword, {
    icon: 'lock',
    shortcut: 'p',
    // The dialog is the danger confirmation: it says what stops working and takes the Google code.
    run: reset('password'),
  }),
  endpointRowAction('merchantUser', merchantUser.resetGoogle, {
    icon: 'key',
    shortcut: 'r',
    when: (user) => user.googleBound,
    run: reset('google'),
  }),
  listLink(
    'merchantUser',
    'merchantUser.log',
    log.list,
    { icon: 'list', shortcut: 'l' },
    (user) => `/log?username=${encodeURIComponent(user.username)}`,
  ),
];
