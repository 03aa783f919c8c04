import { endpoints, type Output } from '../contract/index.ts';
import { action, type Command, type DialogLoader, type RunContext, screen } from './types.ts';

const { merchant } = endpoints;

const secretOnce = () => import('../src/screens/dev/SecretOnce.tsx');
const resetSecretDialog = () => import('../src/screens/dev/ResetSecretDialog.tsx');
const callbackForm = () => import('../src/screens/dev/CallbackForm.tsx');
const ipWhitelistForm = () => import('../src/screens/dev/IpWhitelistForm.tsx');
const surchargeForm = () => import('../src/screens/fees/SurchargeForm.tsx');

/**
 * The merchant these settings act on: a merchant user's own (no id sent), or for a platform user the
 * merchant in view (`merchantId` in the URL); without one the user is sent to choose it.
 */
function merchantTarget(c: RunContext, route: string): { id?: number } | null {
  if (c.userKind !== 'platform') return {};
  const id = c.merchantInView;
  if (id !== undefined) return { id };
  c.toast('warning', c.t('screens.dev.chooseMerchant'));
  c.navigate(route);
  return null;
}

/** A form on the merchant's settings (who it is for as `merchantTarget` finds it), the list refreshed after. */
async function editMerchant(
  c: RunContext,
  form: DialogLoader<{ merchantId?: number | undefined }>,
  route: string,
) {
  const target = merchantTarget(c, route);
  if (target && (await c.dialog(form, { merchantId: target.id }))) c.refresh();
}

/**
 * Resets one secret in a dialog that names the merchant and takes the user's Google code, then shows the
 * new secret once.
 */
async function resetSecret(c: RunContext, which: 'api' | 'webhook') {
  const target = merchantTarget(c, '/dev');
  if (!target) return;
  const m = await c.call(merchant.info, target);
  const fresh = (await c.dialog(resetSecretDialog, {
    which,
    merchantId: target.id,
    code: m.code,
    name: m.name,
  })) as Output<typeof merchant.resetSecret> | undefined;
  if (!fresh) return;
  c.refresh();
  await c.dialog(secretOnce, {
    which,
    code: fresh.code,
    secret: which === 'api' ? fresh.apiSecret : fresh.webhookSecret,
  });
}

/**
 * Development settings (merchant id, secrets, callback URL, payout IP whitelist, signature helper) and
 * fee settings (rates and fees, the surcharge the merchant sets).
 */
export const settingCommands: readonly Command[] = [
  screen({
    id: 'dev.settings',
    route: '/dev',
    group: 'settings',
    icon: 'code',
    shortcut: 'g v',
    needs: [merchant.info, merchant.ipsUpdate],
    screen: () => import('../src/screens/dev/DevScreen.tsx'),
  }),
  action({
    id: 'dev.resetApiSecret',
    icon: 'key',
    needs: [merchant.resetSecret],
    run: (c) => resetSecret(c, 'api'),
  }),
  action({
    id: 'dev.resetWebhookSecret',
    icon: 'key',
    needs: [merchant.resetSecret],
    run: (c) => resetSecret(c, 'webhook'),
  }),
  action({
    id: 'dev.callbackUpdate',
    icon: 'link',
    needs: [merchant.callbackUpdate],
    run: (c) => editMerchant(c, callbackForm, '/dev'),
  }),
  action({
    id: 'dev.ipsUpdate',
    icon: 'shield',
    needs: [merchant.ipsUpdate],
    run: (c) => editMerchant(c, ipWhitelistForm, '/dev'),
  }),

  screen({
    id: 'fees.settings',
    route: '/costManagement',
    group: 'settings',
    icon: 'percent',
    shortcut: 'g f',
    needs: [merchant.info, merchant.surchargeUpdate],
    screen: () => import('../src/screens/fees/FeeScreen.tsx'),
  }),
  action({
    id: 'fees.surchargeUpdate',
    icon: 'edit',
    needs: [merchant.surchargeUpdate],
    run: (c) => editMerchant(c, surchargeForm, '/costManagement'),
  }),
];
