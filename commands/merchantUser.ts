import { endpoints, type Output } from '../contract/index.ts';
import { type Command, type Contexts, type RunContext, rowAction, screen } from './types.ts';

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
  screen({
    id: 'merchantUser.list',
    route: '/merchant/users',
    group: 'business',
    icon: 'users',
    shortcut: 'g U',
    needs: [merchantUser.list],
    screen: () => import('../src/screens/merchantUser/MerchantUserScreen.tsx'),
  }),
  rowAction('merchant', {
    id: 'merchant.users',
    icon: 'users',
    shortcut: 'u',
    needs: [merchantUser.list],
    run: (c, target) => c.navigate(`/merchant/users?merchantId=${target.id}`),
  }),
  rowAction('merchantUser', {
    id: 'merchantUser.disable',
    icon: 'power',
    shortcut: 's',
    needs: [merchantUser.disable],
    when: (user) => user.status === 'active',
    confirm: { danger: true },
    run: change(merchantUser.disable),
  }),
  rowAction('merchantUser', {
    id: 'merchantUser.enable',
    icon: 'power',
    shortcut: 's',
    needs: [merchantUser.enable],
    when: (user) => user.status === 'disabled',
    confirm: {},
    run: change(merchantUser.enable),
  }),
  rowAction('merchantUser', {
    id: 'merchantUser.resetPassword',
    icon: 'lock',
    shortcut: 'p',
    needs: [merchantUser.resetPassword],
    // The dialog is the danger confirmation: it says what stops working and takes the Google code.
    run: reset('password'),
  }),
  rowAction('merchantUser', {
    id: 'merchantUser.resetGoogle',
    icon: 'key',
    shortcut: 'r',
    needs: [merchantUser.resetGoogle],
    when: (user) => user.googleBound,
    run: reset('google'),
  }),
  rowAction('merchantUser', {
    id: 'merchantUser.log',
    icon: 'list',
    shortcut: 'l',
    needs: [log.list],
    run: (c, user) => c.navigate(`/log?username=${encodeURIComponent(user.username)}`),
  }),
];
