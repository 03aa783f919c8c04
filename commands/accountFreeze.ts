import { endpoints } from '../contract/index.ts';
import { accountFreeze as freezeMachine } from '../contract/machines.ts';
import { endpointRowAction, endpointScreen, listLink, openDialog } from './builders.ts';
import type { Command } from './types.ts';

const { accountFreeze } = endpoints;

const recordDialog = () => import('../src/screens/accountFreeze/RecordFreezeDialog.tsx');
const settleDialog = () => import('../src/screens/accountFreeze/SettleFreezeDialog.tsx');

/**
 * Frozen receiving accounts (docs/MONEY-BACK.md section 3): a bank's freeze recorded on its account's row
 * (`z`: the amount, the bank's reference, the letter, the Google code), the freezes' list with whose money
 * each holds, and the settlement by the bank's letter (another user than the recorder).
 */
export const accountFreezeCommands: readonly Command[] = [
  endpointScreen([accountFreeze.list, accountFreeze.info], {
    route: '/receiving/freezes',
    group: 'business',
    icon: 'snowflake',
    screen: () => import('../src/screens/accountFreeze/FreezeScreen.tsx'),
  }),
  endpointRowAction('receivingAccount', accountFreeze.record, {
    icon: 'snowflake',
    shortcut: 'z',
    // Recorded: its drawer shows whose money it holds.
    run: async (c, account) => {
      const done = (await c.dialog(recordDialog, { account })) as { id: number } | undefined;
      if (done) c.navigate(`/receiving/freezes?freeze=${done.id}`);
    },
  }),
  listLink(
    'receivingAccount',
    'receivingAccount.freezes',
    accountFreeze.list,
    { icon: 'snowflake', shortcut: 'Z' },
    (a) => `/receiving/freezes?accountId=${a.id}`,
  ),
  endpointRowAction('accountFreeze', accountFreeze.settle, {
    icon: 'check',
    shortcut: 's',
    when: (f) => freezeMachine.can('settle', f.status),
    run: openDialog(settleDialog, (freeze) => ({ freeze })),
  }),
];
