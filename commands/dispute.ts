import { endpoints } from '../contract/index.ts';
import { dispute as disputeMachine, payin } from '../contract/machines.ts';
import { toMinor } from '../contract/money.ts';
import { endpointScreen, machineSteps, openDialog } from './builders.ts';
import { rowAction } from './types.ts';

const { dispute } = endpoints;
const openForm = () => import('../src/screens/dispute/OpenDisputeDialog.tsx');
const evidenceForm = () => import('../src/screens/dispute/EvidenceDialog.tsx');
const assignForm = () => import('../src/screens/dispute/AssignDialog.tsx');
const decideForm = () => import('../src/screens/dispute/DecideDialog.tsx');
const withdrawForm = () => import('../src/screens/dispute/WithdrawDialog.tsx');
const step = machineSteps('dispute', disputeMachine);

/**
 * Disputes (docs/MONEY-BACK.md section 2): `D` on a paid pay-in with something left of what was paid opens
 * a case (its row menu, its drawer, the palette), which holds the amount from the merchant; the disputes'
 * list follows them: evidence (`n`), an owner (`a`), the decision won (`w`) or lost (`l`) by a platform user
 * who did not open it, or the opener's withdrawal (`c`); `o` opens its pay-in.
 */
export const disputeCommands = [
  endpointScreen([dispute.list, dispute.info], {
    route: '/dispute',
    group: 'orders',
    icon: 'shield',
    shortcut: 'g D',
    screen: () => import('../src/screens/dispute/DisputeScreen.tsx'),
  }),
  rowAction('payin', {
    id: 'dispute.open',
    icon: 'shield',
    shortcut: 'D',
    needs: [dispute.open],
    when: (o) => o.status === payin.state.paid && toMinor(o.paidAmount ?? '0') > toMinor(o.refundedAmount),
    // Opened: its drawer shows what was held.
    run: async (c, order) => {
      const done = (await c.dialog(openForm, { order })) as { id: number } | undefined;
      if (done) c.navigate(`/dispute?dispute=${done.id}`);
    },
  }),
  rowAction('dispute', {
    id: 'dispute.order',
    icon: 'eye',
    shortcut: 'o',
    needs: [endpoints.merchantOrder.list],
    run: (c, d) => c.navigate(`/order?range=60d&order=${encodeURIComponent(d.orderNo)}`),
  }),
  rowAction('dispute', {
    id: dispute.evidence.id,
    icon: 'clipboard',
    shortcut: ['n', 'e'],
    needs: [dispute.evidence],
    when: (d) => disputeMachine.can('work', d.status),
    run: openDialog(evidenceForm, (d) => ({ dispute: d })),
  }),
  step('work', dispute.assign, {
    icon: 'user',
    shortcut: 'a',
    run: openDialog(assignForm, (d) => ({ dispute: d })),
  }),
  rowAction('dispute', {
    id: 'dispute.win',
    icon: 'check',
    shortcut: 'w',
    needs: [dispute.decide],
    when: (d) => disputeMachine.can('win', d.status),
    run: openDialog(decideForm, (d) => ({ dispute: d, outcome: 'won' as const })),
  }),
  rowAction('dispute', {
    id: 'dispute.lose',
    icon: 'zap',
    shortcut: 'l',
    needs: [dispute.decide],
    when: (d) => disputeMachine.can('lose', d.status),
    run: openDialog(decideForm, (d) => ({ dispute: d, outcome: 'lost' as const })),
  }),
  step('withdraw', dispute.withdraw, {
    icon: 'close',
    shortcut: 'c',
    run: openDialog(withdrawForm, (d) => ({ dispute: d })),
  }),
];
