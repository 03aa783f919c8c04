import { endpoints } from '../contract/index.ts';
import { endpointAction, endpointScreen, openDialog } from './builders.ts';
import type { Command } from './types.ts';

const { merchantSettlementtn, settlementtnLog } = endpoints;

const runDialog = () => import('../src/screens/tn/RunDialog.tsx');

/**
 * T+N settlement: the lines a T+N merchant's pending collection is kept in (merchant and platform users)
 * and the settlement runs that release them (platform), with a run started by hand for a day up to today.
 */
export const tnCommands: readonly Command[] = [
  endpointScreen([merchantSettlementtn.list], {
    route: '/merchantsettlementtn',
    group: 'settlement',
    icon: 'clipboard',
    shortcut: 'g t',
    screen: () => import('../src/screens/tn/TnLinesScreen.tsx'),
  }),
  endpointScreen([settlementtnLog.list, settlementtnLog.run], {
    route: '/settlementtnlog',
    group: 'settlement',
    icon: 'zap',
    screen: () => import('../src/screens/tn/TnRunsScreen.tsx'),
  }),
  endpointAction(settlementtnLog.run, {
    icon: 'play',
    // Shift-R, as forcing moves are: a plain r is reject on rows, and on a row it does not apply to it
    // would fall through to this global action.
    shortcut: 'R',
    // The dialog is the confirmation: it names the day and asks for the Google code.
    run: openDialog(runDialog, undefined, '/settlementtnlog'),
  }),
];
