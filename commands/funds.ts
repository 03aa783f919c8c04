import { endpoints } from '../contract/index.ts';
import { recharge } from '../contract/machines.ts';
import { createAction, openDialog } from './builders.ts';
import { action, type Command, type Contexts, rowAction, screen } from './types.ts';

const { merchantWallet, merchantRechargeLog } = endpoints;

const transferDialog = () => import('../src/screens/wallet/TransferDialog.tsx');
const rechargeForm = () => import('../src/screens/recharge/RechargeForm.tsx');
const decisionForm = () => import('../src/screens/recharge/DecisionForm.tsx');
const decide = (decision: 'confirm' | 'reject') =>
  openDialog(decisionForm, (recharge: Contexts['recharge']) => ({ recharge, decision }));

/**
 * The merchant's money: the wallet (balances, change log, transfer from collection to payout balance)
 * and recharge records, where merchants report a top-up and platform users confirm or reject it (the
 * platform's "recharge approval" is this same screen with those row actions).
 */
export const fundCommands: readonly Command[] = [
  screen({
    id: 'merchantWallet.info',
    route: '/wallet',
    group: 'funds',
    icon: 'wallet',
    shortcut: 'g w',
    needs: [merchantWallet.info, merchantWallet.transfer, merchantWallet.transferVerify],
    screen: () => import('../src/screens/wallet/WalletScreen.tsx'),
  }),
  action({
    id: 'merchantWallet.transfer',
    icon: 'send',
    shortcut: 't',
    needs: [merchantWallet.transfer],
    run: openDialog(transferDialog),
  }),

  screen({
    id: 'merchantRechargeLog.list',
    route: '/merchantrechargelog',
    group: 'funds',
    icon: 'bank',
    shortcut: 'g e',
    needs: [merchantRechargeLog.list],
    screen: () => import('../src/screens/recharge/RechargeScreen.tsx'),
  }),
  createAction(
    'merchantRechargeLog.create',
    [merchantRechargeLog.create],
    openDialog(rechargeForm, undefined, '/merchantrechargelog'),
  ),
  rowAction('recharge', {
    id: 'merchantRechargeLog.confirm',
    icon: 'check',
    shortcut: 'c',
    needs: [merchantRechargeLog.confirm],
    when: (r) => recharge.can('confirm', r.status),
    // The form is the confirmation: it says what is credited and asks for a reason and the Google code.
    run: decide('confirm'),
  }),
  rowAction('recharge', {
    id: 'merchantRechargeLog.reject',
    icon: 'close',
    shortcut: 'r',
    needs: [merchantRechargeLog.reject],
    when: (r) => recharge.can('reject', r.status),
    // The form is the confirmation: its button is the danger one.
    run: decide('reject'),
  }),
];
