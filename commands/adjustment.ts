import { endpoints } from '../contract/index.ts';
import { createAction, endpointScreen, listLink, openDialog } from './builders.ts';
import { action, type Command, rowAction } from './types.ts';

const { balanceAdjustment, agentCommission } = endpoints;

const adjustmentDialog = () => import('../src/screens/adjustment/AdjustmentDialog.tsx');
const payDialog = () => import('../src/screens/adjustment/PayCommissionDialog.tsx');

/** The agent whose commission is on screen (`agentId` in the URL of the commission screen). */
export function agentInView(search = globalThis.location?.search ?? ''): number | undefined {
  const v = new URLSearchParams(search).get('agentId');
  return v && /^[1-9]\d{0,9}$/.test(v) ? Number(v) : undefined;
}

/** An agent's commission statement, the current week unless the URL says otherwise. */
export const commissionPath = (agentId: number) => `/agent/commission?agentId=${agentId}`;

/**
 * Balance adjustments (a platform user credits or debits a merchant wallet, with a reason and the Google
 * code; above the threshold a second person approves) and agents' commission (the statement per period,
 * commission paid out with the bank's reference).
 */
export const adjustmentCommands: readonly Command[] = [
  endpointScreen([balanceAdjustment.list], {
    route: '/wallet/adjustments',
    group: 'funds',
    icon: 'edit',
    shortcut: 'g J',
    screen: () => import('../src/screens/adjustment/AdjustmentScreen.tsx'),
  }),
  // Shift-J from anywhere: the merchant in view (the picker's) is chosen already.
  createAction(
    [balanceAdjustment.create],
    openDialog(adjustmentDialog, (_, c) => ({ merchantId: c.merchantInView })),
    { shortcut: 'J' },
  ),
  listLink(
    'balanceAdjustment',
    'balanceAdjustment.walletLog',
    endpoints.merchantWallet.log,
    { icon: 'wallet', shortcut: 'l' },
    (row) => `/wallet?merchantId=${row.merchantId}`,
  ),

  endpointScreen([agentCommission.statement], {
    route: '/agent/commission',
    group: 'business',
    icon: 'percent',
    shortcut: 'g A',
    screen: () => import('../src/screens/adjustment/CommissionScreen.tsx'),
  }),
  listLink(
    'agent',
    'agent.commission',
    agentCommission.statement,
    { icon: 'percent', shortcut: 'c' },
    (target) => commissionPath(target.id),
  ),
  rowAction('agent', {
    id: 'agent.payCommission',
    icon: 'send',
    shortcut: 'p',
    needs: [agentCommission.pay, agentCommission.statement],
    run: openDialog(payDialog, (target) => ({ agentId: target.id })),
  }),
  // Shift-P on the commission screen: pays the agent on screen; elsewhere it asks to choose one first.
  action({
    id: 'agentCommission.pay',
    icon: 'send',
    shortcut: 'P',
    needs: [agentCommission.pay, agentCommission.statement],
    run: async (c) => {
      const agentId = agentInView();
      if (agentId === undefined) {
        c.toast('info', c.t('screens.commission.chooseAgent'));
        c.navigate('/agent/commission');
        return;
      }
      if (await c.dialog(payDialog, { agentId })) c.refresh();
    },
  }),
];
