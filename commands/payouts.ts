import { endpoints } from '../contract/index.ts';
import { payout as payoutMachine } from '../contract/machines.ts';
import { createAction, endpointAction, endpointScreen, machineSteps, openDialog } from './builders.ts';
import { pushAndReport } from './orders.ts';
import { type Contexts, rowAction } from './types.ts';

const { merchantPayout } = endpoints;
const step = machineSteps('payout', payoutMachine);

const transferDialog = () => import('../src/screens/payout/SingleTransferDialog.tsx');
const bulkUploadDialog = () => import('../src/screens/payout/BulkUploadDialog.tsx');
const markDialog = () => import('../src/screens/payout/MarkDialog.tsx');
const bulkPushDialog = () => import('../src/screens/order/BulkPushDialog.tsx');

/** A hand decision on a payout, in the dialog that asks for the reason and the Google code. */
const mark = (action: 'retry' | 'markSuccess' | 'markFailed') =>
  openDialog(markDialog, (payout: Contexts['payout']) => ({ payout, action }));

/** Payout orders: the list, single transfers, bulk files, and the hand actions on a payout. */
export const payoutCommands = [
  endpointScreen([merchantPayout.list, merchantPayout.create, merchantPayout.bulkCreate], {
    route: '/payout',
    group: 'orders',
    icon: 'send',
    shortcut: 'g y',
    screen: () => import('../src/screens/payout/PayoutScreen.tsx'),
  }),
  createAction([merchantPayout.create], openDialog(transferDialog), { shortcut: '+ p' }),
  endpointAction(merchantPayout.bulkCreate, {
    icon: 'upload',
    shortcut: '+ b',
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
  // The dialog is the confirmation: it asks for the reason and the Google code.
  step('retry', merchantPayout.retry, { icon: 'refresh', shortcut: 'r', run: mark('retry') }),
  step('markSuccess', merchantPayout.markSuccess, { icon: 'check', shortcut: 's', run: mark('markSuccess') }),
  step('markFailed', merchantPayout.markFailed, { icon: 'close', shortcut: 'F', run: mark('markFailed') }),
  step('push', merchantPayout.push, {
    icon: 'send',
    shortcut: 'p',
    run: (c, payout) => pushAndReport(c, merchantPayout.push, payout.id),
  }),
];
