import { endpoints } from '../contract/index.ts';
import { editAction, endpointScreen, openDialog } from './builders.ts';
import type { Command } from './types.ts';

const { parameter } = endpoints;

const parameterDialog = () => import('../src/screens/parameter/ParameterDialog.tsx');

/** The platform parameters (OPERATIONS.md section 4): the list, and a change confirmed by the Google code. */
export const parameterCommands: readonly Command[] = [
  endpointScreen([parameter.list, parameter.update], {
    route: '/system/parameters',
    group: 'system',
    icon: 'code',
    // Every `g` + lower-case letter is taken: Shift-P after g.
    shortcut: 'g P',
    screen: () => import('../src/screens/parameter/ParameterScreen.tsx'),
  }),
  // The dialog is the confirmation: it shows the value and asks for the Google code.
  editAction(
    'parameter',
    parameter.update,
    openDialog(parameterDialog, (target) => ({ parameter: target })),
    { id: parameter.update.id },
  ),
];
