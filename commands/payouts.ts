import { endpoints } from '../contract/index.ts';
import { payout as payoutMachine } from '../contract/machines.ts';
import { createAction, openDialog } from './builders.ts';
import { pushAndReport } from './orders.ts';
import { action, type Contexts, rowAction, screen } from './types.ts';

const { merchantPayout } = endpoints;

const transferDialog = () => import('../src/screens/payout/SingleTransferDialog.tsx');
const bulkUploadDialog = () => import('../src/screens/payout/BulkUploadDialog.tsx');
const markDialog = () => import('../src/screens/payout/MarkDialog.tsx');
const bulkPushDialog = () => import('../src/screens/order/BulkPushDialog.tsx');

/** A hand decision on a payout, in the dialog that asks for the reason and the Google code. */
const mark = (action: 'retry' | 'markSuccess' | 'markFailed') =>
  openDialog(markDialog, (payout: Contexts['payout']) => ({ payout, action }));

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
  createAction('merchantPayout.create', [merchantPayout.create], openDialog(transferDialog)),
  action({
    id: 'merchantPayout.bulkCreate',
    icon: 'upload',
    needs: [merchantPayout.bulkCreate],
    run: openDialog(bulkUploadDialog),
  }),
  rowAction('payout', {
    id: 'merchantPayout.bulkPush',
    icon: 'send',
    shortcut: 'p',
    needs: [merchantPayout.push],
    bulk: true,
    run: openDialog(bulkPushDialog, (_, c) => ({
      kind: 'payout' as const,
      rows: [...c.selection('payout')],
    })),
  }),
  rowAction('payout', {
    id: 'merchantPayout.retry',
    icon: 'refresh',
    shortcut: 'r',
    needs: [merchantPayout.retry],
    when: (p) => payoutMachine.can('retry', p.status),
    // The dialog is the confirmation: it asks for the reason and the Google code.
    run: mark('retry'),
  }),
  rowAction('payout', {
    id: 'merchantPayout.markSuccess',
    icon: 'check',
    shortcut: 's',
    needs: [merchantPayout.markSuccess],
    when: (p) => payoutMachine.can('markSuccess', p.status),
    run: mark('markSuccess'),
  }),
  rowAction('payout', {
    id: 'merchantPayout.markFailed',
    icon: 'close',
    shortcut: 'F',
    needs: [merchantPayout.markFailed],
    when: (p) => payoutMachine.can('markFailed', p.status),
    run: mark('markFailed'),
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
