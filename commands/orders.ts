import { attemptAnswer } from '../contract/callbackNotes.ts';
import { endpoints } from '../contract/index.ts';
import { payin } from '../contract/machines.ts';
import { deleteAction, openDialog } from './builders.ts';
import { action, type Contexts, type RunContext, rowAction, screen } from './types.ts';

const { merchantOrder } = endpoints;
type Payin = Contexts['payin'];

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
  screen({
    id: 'merchantOrder.list',
    route: '/order',
    group: 'orders',
    icon: 'clipboard',
    shortcut: 'g o',
    needs: [merchantOrder.list, merchantOrder.create, merchantOrder.update, merchantOrder.delete],
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
  rowAction('payin', {
    id: 'merchantOrder.utrCheck',
    icon: 'search',
    shortcut: 'u',
    needs: [merchantOrder.utrCheck],
    when: (o) => payin.can('utrCheck', o.status),
    run: (c, order) => utrCheckThenSupplement(c, order),
  }),
  rowAction('payin', {
    id: 'merchantOrder.supplement',
    icon: 'check',
    shortcut: 's',
    needs: [merchantOrder.supplement],
    when: (o) => payin.can('supplement', o.status),
    run: openDialog(supplementDialog, (order) => ({ order })),
  }),
  rowAction('payin', {
    id: 'merchantOrder.forceSupplement',
    icon: 'zap',
    shortcut: 'S',
    needs: [merchantOrder.forceSupplement],
    when: (o) => payin.can('force', o.status),
    confirm: { danger: true },
    run: openDialog(forceSupplementDialog, (order) => ({ order })),
  }),
  rowAction('payin', {
    id: 'merchantOrder.uploadImage',
    icon: 'image',
    shortcut: 'i',
    needs: [merchantOrder.uploadImage],
    when: (o) => payin.can('uploadImage', o.status),
    run: openDialog(imageDialog, (order) => ({ order })),
  }),
  rowAction('payin', {
    id: 'merchantOrder.push',
    icon: 'send',
    shortcut: 'p',
    needs: [merchantOrder.push],
    when: (o) => payin.can('push', o.status),
    run: (c, order) => pushAndReport(c, merchantOrder.push, order.id),
  }),
  rowAction('payin', {
    id: 'merchantOrder.update',
    icon: 'link',
    shortcut: 'e',
    needs: [merchantOrder.update],
    when: (o) => payin.can('update', o.status),
    run: openDialog(notifyUrlDialog, (order) => ({ order })),
  }),
  deleteAction('payin', 'merchantOrder.delete', merchantOrder.delete, {
    // Never an order money reached, whatever its state (the server checks the same).
    when: (o) => payin.can('delete', o.status) && o.paidAt === null,
  }),
];
