import { endpoints } from '../contract/index.ts';
import { callThenRefresh, createAction, endpointScreen, openDialog } from './builders.ts';
import { type Command, rowAction } from './types.ts';

const { blocklist } = endpoints;

const blocklistForm = () => import('../src/screens/risk/BlocklistForm.tsx');

/**
 * Risk rules (docs/MONEY-BACK.md section 4): the blocklist, its entries added and removed (a removal is
 * recorded, the entry stays). Velocity limits are merchant terms, on the merchant's edit form.
 */
export const riskCommands: readonly Command[] = [
  endpointScreen([blocklist.list], {
    route: '/risk/blocklist',
    group: 'business',
    icon: 'shield',
    shortcut: 'g B',
    screen: () => import('../src/screens/risk/BlocklistScreen.tsx'),
  }),
  // Shift-K from anywhere: a payer is often blocked from the order that gave them away.
  createAction([blocklist.add], openDialog(blocklistForm), { shortcut: 'K', id: 'blocklist.create' }),
  rowAction('blocklistEntry', {
    id: 'blocklist.remove',
    icon: 'trash',
    shortcut: 'Delete',
    needs: [blocklist.remove],
    when: (entry) => entry.removedAt === null,
    confirm: { danger: true },
    run: callThenRefresh(blocklist.remove, (entry) => ({ id: entry.id }), {
      message: 'screens.blocklist.removed',
    }),
  }),
];
