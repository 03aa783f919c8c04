import { endpoints } from '../contract/index.ts';
import { slip as slipMachine } from '../contract/machines.ts';
import { createAction, endpointRowAction, endpointScreen, openDialog } from './builders.ts';
import type { Command, Contexts } from './types.ts';

const { withdrawalSlip } = endpoints;
type Slip = Contexts['slip'];

const newSlipDialog = () => import('../src/screens/slip/NewSlipDialog.tsx');
const withdrawDialog = () => import('../src/screens/slip/WithdrawDialog.tsx');
const dropDialog = () => import('../src/screens/slip/DropDialog.tsx');
const downloadSlip = () => import('../src/screens/slip/download.ts');

/** Lines still wait at the bank: they can be marked withdrawn or dropped. */
const waiting = (s: Slip) => slipMachine.can('withdraw', s.status) && s.lineCounts.toBeWithdrawn > 0;

/**
 * Withdrawal slips: bank settlements and manual-bank payouts written as a bank's bulk-transfer file, then
 * each line marked withdrawn with the bank's reference (completing its settlement or payout) or
 * dropped, or the slip voided before any line was withdrawn. Every write asks for the Google code.
 */
export const slipCommands: readonly Command[] = [
  endpointScreen([withdrawalSlip.list], {
    route: '/withdrawalslip',
    group: 'settlement',
    icon: 'clipboard',
    shortcut: 'g i',
    screen: () => import('../src/screens/slip/SlipScreen.tsx'),
  }),
  createAction(
    [withdrawalSlip.create, withdrawalSlip.candidates],
    openDialog(newSlipDialog, undefined, '/withdrawalslip'),
    { shortcut: 'n' },
  ),
  endpointRowAction('slip', withdrawalSlip.withdraw, {
    icon: 'check',
    shortcut: 'w',
    when: waiting,
    run: openDialog(withdrawDialog, (s) => ({ slip: s })),
  }),
  endpointRowAction('slip', withdrawalSlip.drop, {
    icon: 'close',
    shortcut: 'r',
    when: waiting,
    run: openDialog(dropDialog, (s) => ({ slip: s, decision: 'drop' as const })),
  }),
  endpointRowAction('slip', withdrawalSlip.void, {
    icon: 'trash',
    shortcut: 'v',
    when: (s) => slipMachine.can('void', s.status) && s.lineCounts.withdrawn === 0,
    run: openDialog(dropDialog, (s) => ({ slip: s, decision: 'void' as const })),
  }),
  endpointRowAction('slip', withdrawalSlip.download, {
    icon: 'download',
    shortcut: 'd',
    run: async (c, s) => {
      const { saveSlipFile } = await downloadSlip();
      if (await saveSlipFile(s)) c.toast('success', c.t('screens.slip.downloaded', { fileName: s.fileName }));
    },
  }),
];
