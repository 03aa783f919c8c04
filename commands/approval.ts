import { endpoints } from '../contract/index.ts';
import { approval as approvalMachine } from '../contract/machines.ts';
import { openDialog } from './builders.ts';
import { type Contexts, rowAction, screen } from './types.ts';

const { approval } = endpoints;

/**
 * Where the object of a request is shown: its order's drawer over the order list (the palette's link),
 * or the settlement queue's; null for an object without a screen of its own.
 */
export function objectRoute(r: Contexts['approval']): string | null {
  if (r.label === null) return null;
  const no = encodeURIComponent(r.label);
  switch (r.refType) {
    case 'payin':
      return `/order?range=60d&order=${no}`;
    case 'payout':
      return `/payout?range=60d&order=${no}`;
    case 'settlement':
      return `/settlementquery?settlement=${no}`;
    default:
      return null;
  }
}

const decisionDialog = () => import('../src/screens/approval/DecisionDialog.tsx');
const decide = (decision: 'approve' | 'reject') =>
  openDialog(decisionDialog, (request: Contexts['approval']) => ({ request, decision }));

/**
 * Maker–checker: the queue of actions on money above the threshold that wait for a second platform
 * user, who approves (the action runs in their name) or rejects each, and opens the object it acts on.
 */
export const approvalCommands = [
  screen({
    id: 'approval.list',
    route: '/approvals',
    group: 'settlement',
    icon: 'shield',
    shortcut: 'g k',
    needs: [approval.list],
    screen: () => import('../src/screens/approval/ApprovalScreen.tsx'),
  }),
  // The dialogs are the confirmations: they say what runs and ask for the Google code (and why, to reject).
  rowAction('approval', {
    id: 'approval.approve',
    icon: 'check',
    shortcut: 'a',
    needs: [approval.approve],
    when: (r) => approvalMachine.can('approve', r.status),
    run: decide('approve'),
  }),
  rowAction('approval', {
    id: 'approval.reject',
    icon: 'close',
    shortcut: 'r',
    needs: [approval.reject],
    when: (r) => approvalMachine.can('reject', r.status),
    run: decide('reject'),
  }),
  rowAction('approval', {
    id: 'approval.openObject',
    icon: 'link',
    shortcut: 'o',
    needs: [approval.list],
    when: (r) => objectRoute(r) !== null,
    run: (c, r) => c.navigate(objectRoute(r)!),
  }),
];
