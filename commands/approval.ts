import { endpoints } from '../contract/index.ts';
import { approval as approvalMachine } from '../contract/machines.ts';
import { endpointScreen, listLink, machineSteps, openDialog } from './builders.ts';
import type { Contexts } from './types.ts';

const { approval } = endpoints;
const step = machineSteps('approval', approvalMachine);

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
  endpointScreen([approval.list], {
    route: '/approvals',
    group: 'settlement',
    icon: 'shield',
    shortcut: 'g k',
    screen: () => import('../src/screens/approval/ApprovalScreen.tsx'),
  }),
  // The dialogs are the confirmations: they say what runs and ask for the Google code (and why, to reject).
  step('approve', approval.approve, { icon: 'check', shortcut: 'a', run: decide('approve') }),
  step('reject', approval.reject, { icon: 'close', shortcut: 'r', run: decide('reject') }),
  listLink(
    'approval',
    'approval.openObject',
    approval.list,
    { icon: 'link', shortcut: 'o', when: (r) => objectRoute(r) !== null },
    (r) => objectRoute(r)!,
  ),
];
