import { endpoints } from '../contract/index.ts';
import { recharge } from '../contract/machines.ts';
import { createAction, endpointAction, endpointScreen, machineSteps, openDialog } from './builders.ts';
import type { Command, Contexts } from './types.ts';

const { merchantWallet, merchantRechargeLog } = endpoints;
const step = machineSteps('recharge', recharge);

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
  endpointScreen([merchantWallet.info, merchantWallet.transfer, merchantWallet.transferVerify], {
    route: '/wallet',
    group: 'funds',
    icon: 'wallet',
    shortcut: 'g w',
    screen: () => import('../src/screens/wallet/WalletScreen.tsx'),
  }),
  endpointAction(merchantWallet.transfer, { icon: 'send', shortcut: 't', run: openDialog(transferDialog) }),

  endpointScreen([merchantRechargeLog.list], {
    route: '/merchantrechargelog',
    group: 'funds',
    icon: 'bank',
    shortcut: 'g e',
    screen: () => import('../src/screens/recharge/RechargeScreen.tsx'),
  }),
  createAction([merchantRechargeLog.create], openDialog(rechargeForm, undefined, '/merchantrechargelog'), {
    shortcut: '+ t',
  }),
  // The form is the confirmation: it says what is credited and asks for a reason and the Google code.
  step('confirm', merchantRechargeLog.confirm, { icon: 'check', shortcut: 'c', run: decide('confirm') }),
  // The form is the confirmation: its button is the danger one.
  step('reject', merchantRechargeLog.reject, { icon: 'close', shortcut: 'r', run: decide('reject') }),
];
