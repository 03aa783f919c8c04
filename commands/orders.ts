import { attemptAnswer } from '../contract/callbackNotes.ts';
import { endpoints } from '../contract/index.ts';
import { payin } from '../contract/machines.ts';
import { deleteAction, endpointScreen, machineSteps, openDialog } from './builders.ts';
import { action, type Contexts, type RunContext, rowAction } from './types.ts';

const { merchantOrder } = endpoints;
type Payin = Contexts['payin'];
const step = machineSteps('payin', payin);

const utrCheckDialog = () => import('../src/screens/order/UtrCheckDialog.tsx');
const supplementDialog = () => import('../src/screens/order/SupplementDialog.tsx');
const forceSupplementDialog = () => import('../src/screens/order/ForceSupplementDialog.tsx');
const imageDialog = () => import('../src/screens/order/ImageUploadDialog.tsx');
const notifyUrlDialog = () => import('../src/screens/order/NotifyUrlDialog.tsx');
const bulkPushDialog = () => import('../src/screens/order/BulkPushDialog.tsx');
const bulkUtrDialog = () => import('../src/screens/order/BulkUtrCheckDialog.tsx');

/** A manual callback push, reported by the merchant's answer. */
export async function pushAndReport(
  c: RunContext,
  push: typeof merchantOrder.push | typeof endpoints.merchantPayout.push,
  id: number,
): Promise<void> {
  const attempt = await c.call(push, { id });
  const delivered = attempt.httpStatus !== null && attempt.httpStatus >= 200 && attempt.httpStatus < 300;
  c.toast(
    delivered ? 'success' : 'error',
    attempt.httpStatus === null
      ? // No HTTP answer: say why (timeout, refused address, network error) rather than "HTTP —".
        c.t('screens.order.push.notSent', { answer: attemptAnswer(null, attempt.response, c.t) })
      : c.t(delivered ? 'screens.order.push.delivered' : 'screens.order.push.refused', {
          status: attempt.httpStatus,
          ms: attempt.durationMs,
        }),
  );
  c.refresh();
}

/** UTR check, and a supplement with what it found when the check offers one. */
async function utrCheckThenSupplement(c: RunContext, order?: Payin): Promise<void> {
  const result = (await c.dialog(utrCheckDialog, { order })) as
    | { supplement: { utr: string; paidAmount: string } }
    | undefined;
  if (order && result?.supplement) {
    if (await c.dialog(supplementDialog, { order, ...result.supplement })) c.refresh();
  }
}

/** Collection (pay-in) orders: the list and every action on an order. */
export const orderCommands = [
  endpointScreen([merchantOrder.list, merchantOrder.create, merchantOrder.update, merchantOrder.delete], {
    route: '/order',
    group: 'orders',
    icon: 'clipboard',
    shortcut: 'g o',
    screen: () => import('../src/screens/order/OrderScreen.tsx'),
  }),
  action({
    id: 'merchantOrder.utrLookup',
    icon: 'search',
    needs: [merchantOrder.utrCheck],
    run: (c) => utrCheckThenSupplement(c),
  }),
  // Bulk versions first: with several rows checked their key acts on the selection.
  rowAction('payin', {
    id: 'merchantOrder.bulkPush',
    icon: 'send',
    shortcut: 'p',
    needs: [merchantOrder.push],
    bulk: true,
    run: openDialog(bulkPushDialog, (_, c) => ({ kind: 'payin' as const, rows: [...c.selection('payin')] })),
  }),
  rowAction('payin', {
    id: 'merchantOrder.bulkUtrCheck',
    icon: 'search',
    shortcut: 'u',
    needs: [merchantOrder.utrCheck],
    bulk: true,
    run: openDialog(bulkUtrDialog, (_, c) => ({ rows: [...c.selection('payin')] })),
  }),
  step('utrCheck', merchantOrder.utrCheck, {
    icon: 'search',
    shortcut: 'u',
    run: (c, order) => utrCheckThenSupplement(c, order),
  }),
  step('supplement', merchantOrder.supplement, {
    icon: 'check',
    shortcut: 's',
    run: openDialog(supplementDialog, (order) => ({ order })),
  }),
  step('force', merchantOrder.forceSupplement, {
    icon: 'zap',
    shortcut: 'S',
    confirm: { danger: true },
    run: openDialog(forceSupplementDialog, (order) => ({ order })),
  }),
  step('uploadImage', merchantOrder.uploadImage, {
    icon: 'image',
    shortcut: 'i',
    run: openDialog(imageDialog, (order) => ({ order })),
  }),
  step('push', merchantOrder.push, {
    icon: 'send',
    shortcut: 'p',
    run: (c, order) => pushAndReport(c, merchantOrder.push, order.id),
  }),
  step('update', merchantOrder.update, {
    icon: 'link',
    shortcut: 'e',
    run: openDialog(notifyUrlDialog, (order) => ({ order })),
  }),
  deleteAction('payin', merchantOrder.delete, {
    // Never an order money reached, whatever its state (the server checks the same).
    when: (o) => payin.can('delete', o.status) && o.paidAt === null,
  }),
];
