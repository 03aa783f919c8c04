import { endpoints } from '../contract/index.ts';
import { payin, refund as refundMachine } from '../contract/machines.ts';
import { endpointScreen, machineSteps, openDialog } from './builders.ts';
import { rowAction } from './types.ts';

const { refund } = endpoints;
const refundDialog = () => import('../src/screens/refund/RefundDialog.tsx');
const step = machineSteps('refund', refundMachine);

/**
 * Refunds (docs/MONEY-BACK.md section 1): `f` on a paid pay-in with something left to refund opens the
 * refund form (its row menu, its drawer, the palette); the refunds list follows them, `c` withdraws one
 * still waiting for a second person and `o` opens its pay-in.
 */
export const refundCommands = [
  endpointScreen([refund.list], {
    route: '/refund',
    group: 'orders',
    icon: 'refresh',
    shortcut: 'g R',
    screen: () => import('../src/screens/refund/RefundScreen.tsx'),
  }),
  rowAction('payin', {
    id: 'refund.create',
    icon: 'refresh',
    shortcut: 'f',
    needs: [refund.create],
    when: (o) => payin.can('refund', o.status) && o.refundedAmount !== o.paidAmount,
    run: openDialog(refundDialog, (order) => ({ order })),
  }),
  step('cancel', refund.cancel, {
    icon: 'close',
    shortcut: 'c',
    confirm: { danger: true },
    run: async (c, r) => {
      await c.call(refund.cancel, { id: r.id });
      c.toast('success', c.t('app.doneWhat', { what: c.t('commands.refund.cancel.title') }));
      c.refresh();
    },
  }),
  rowAction('refund', {
    id: 'refund.order',
    icon: 'eye',
    shortcut: 'o',
    needs: [endpoints.merchantOrder.list],
    run: (c, r) => c.navigate(`/order?range=60d&order=${encodeURIComponent(r.orderNo)}`),
  }),
];
