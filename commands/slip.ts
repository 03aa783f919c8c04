import { endpoints } from '../contract/index.ts';
import { slip as slipMachine } from '../contract/machines.ts';
import { createAction, openDialog } from './builders.ts';
import { type Command, type Contexts, rowAction, screen } from './types.ts';

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
  screen({
    id: 'withdrawalSlip.list',
    route: '/withdrawalslip',
    group: 'settlement',
    icon: 'clipboard',
    shortcut: 'g i',
    needs: [withdrawalSlip.list],
    screen: () => import('../src/screens/slip/SlipScreen.tsx'),
  }),
  createAction(
    'withdrawalSlip.create',
    [withdrawalSlip.create, withdrawalSlip.candidates],
    openDialog(newSlipDialog, undefined, '/withdrawalslip'),
    'n',
  ),
  rowAction('slip', {
    id: 'withdrawalSlip.withdraw',
    icon: 'check',
    shortcut: 'w',
    needs: [withdrawalSlip.withdraw],
    when: waiting,
    run: openDialog(withdrawDialog, (s) => ({ slip: s })),
  }),
  rowAction('slip', {
    id: 'withdrawalSlip.drop',
    icon: 'close',
    shortcut: 'r',
    needs: [withdrawalSlip.drop],
    when: waiting,
    run: openDialog(dropDialog, (s) => ({ slip: s, decision: 'drop' as const })),
  }),
  rowAction('slip', {
    id: 'withdrawalSlip.void',
    icon: 'trash',
    shortcut: 'v',
    needs: [withdrawalSlip.void],
    when: (s) => slipMachine.can('void', s.status) && s.lineCounts.withdrawn === 0,
    run: openDialog(dropDialog, (s) => ({ slip: s, decision: 'void' as const })),
  }),
  rowAction('slip', {
    id: 'withdrawalSlip.download',
    icon: 'download',
    shortcut: 'd',
    needs: [withdrawalSlip.download],
    run: async (c, s) => {
      const { saveSlipFile } = await downloadSlip();
      if (await saveSlipFile(s)) c.toast('success', c.t('screens.slip.downloaded', { fileName: s.fileName }));
    },
  }),
];
