import { endpoints } from '../contract/index.ts';
import { openDialog } from './builders.ts';
import { action, type Command, screen } from './types.ts';

const { merchantSettlementtn, settlementtnLog } = endpoints;

const runDialog = () => import('../src/screens/tn/RunDialog.tsx');

/**
 * T+N settlement: the lines a T+N merchant's pending collection is kept in (merchant and platform users)
 * and the settlement runs that release them (platform), with a run started by hand for a day up to today.
 */
export const tnCommands: readonly Command[] = [
  screen({
    id: 'merchantSettlementtn.list',
    route: '/merchantsettlementtn',
    group: 'settlement',
    icon: 'clipboard',
    shortcut: 'g t',
    needs: [merchantSettlementtn.list],
    screen: () => import('../src/screens/tn/TnLinesScreen.tsx'),
  }),
  screen({
    id: 'settlementtnLog.list',
    route: '/settlementtnlog',
    group: 'settlement',
    icon: 'zap',
    needs: [settlementtnLog.list, settlementtnLog.run],
    screen: () => import('../src/screens/tn/TnRunsScreen.tsx'),
  }),
  action({
    id: 'settlementtnLog.run',
    icon: 'play',
    // Shift-R, as forcing moves are: a plain r is reject on rows, and on a row it does not apply to it
    // would fall through to this global action.
    shortcut: 'R',
    needs: [settlementtnLog.run],
    // The dialog is the confirmation: it names the day and asks for the Google code.
    run: openDialog(runDialog, undefined, '/settlementtnlog'),
  }),
];
