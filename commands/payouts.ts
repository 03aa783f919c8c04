import { endpoints } from '../contract/index.ts';
import { payout as payoutMachine } from '../contract/machines.ts';
import { pushAndReport } from './orders.ts';
import { action, rowAction, screen } from './types.ts';

const { merchantPayout } = endpoints;

const transferDialog = () => import('../src/screens/payout/SingleTransferDialog.tsx');
const bulkUploadDialog = () => import('../src/screens/payout/BulkUploadDialog.tsx');
const markDialog = () => import('../src/screens/payout/MarkDialog.tsx');
const bulkPushDialog = () => import('../src/screens/order/BulkPushDialog.tsx');

/** Payout orders: the list, single transfers, bulk files, and the hand actions on a payout. */
export const payoutCommands = [
  screen({
    id: 'merchantPayout.list',
    route: '/payout',
    group: 'orders',
    icon: 'send',
    shortcut: 'g y',
    needs: [merchantPayout.list, merchantPayout.create, merchantPayout.bulkCreate],
    screen: () => import('../src/screens/payout/PayoutScreen.tsx'),
  }),
  action({
    id: 'merchantPayout.create',
    icon: 'plus',
    needs: [merchantPayout.create],
    run: async (c) => {
      if (await c.dialog(transferDialog, {})) c.refresh();
    },
  }),
  action({
    id: 'merchantPayout.bulkCreate',
    icon: 'upload',
    needs: [merchantPayout.bulkCreate],
    run: async (c) => {
      if (await c.dialog(bulkUploadDialog, {})) c.refresh();
    },
  }),
  rowAction('payout', {
    id: 'merchantPayout.bulkPush',
    icon: 'send',
    shortcut: 'p',
    needs: [merchantPayout.push],
    bulk: true,
    run: async (c) => {
      if (await c.dialog(bulkPushDialog, { kind: 'payout' as const, rows: [...c.selection('payout')] }))
        c.refresh();
    },
  }),
  rowAction('payout', {
    id: 'merchantPayout.retry',
    icon: 'refresh',
    shortcut: 'r',
    needs: [merchantPayout.retry],
    when: (p) => payoutMachine.can('retry', p.status),
    // The dialog is the confirmation: it asks for the reason and the Google code.
    run: async (c, payout) => {
      if (await c.dialog(markDialog, { payout, action: 'retry' as const })) c.refresh();
    },
  }),
  rowAction('payout', {
    id: 'merchantPayout.markSuccess',
    icon: 'check',
    shortcut: 's',
    needs: [merchantPayout.markSuccess],
    when: (p) => payoutMachine.can('markSuccess', p.status),
    run: async (c, payout) => {
      if (await c.dialog(markDialog, { payout, action: 'markSuccess' as const })) c.refresh();
    },
  }),
  rowAction('payout', {
    id: 'merchantPayout.markFailed',
    icon: 'close',
    shortcut: 'F',
    needs: [merchantPayout.markFailed],
    when: (p) => payoutMachine.can('markFailed', p.status),
    run: async (c, payout) => {
      if (await c.dialog(markDialog, { payout, action: 'markFailed' as const })) c.refresh();
    },
  }),
  rowAction('payout', {
    id: 'merchantPayout.push',
    icon: 'send',
    shortcut: 'p',
    needs: [merchantPayout.push],
    when: (p) => payoutMachine.can('push', p.status),
    run: (c, payout) => pushAndReport(c, merchantPayout.push, payout.id),
  }),
];
