import { endpoints } from '../contract/index.ts';
import { type Command, screen } from './types.ts';

const { statOrder } = endpoints;

/**
 * Reports over the balances: the D0 settlement summary, per merchant and business day the collection
 * wallet from opening to closing, checked against the ledger (merchant users see their own).
 */
export const statCommands: readonly Command[] = [
  screen({
    id: 'statOrder.settlementSummary',
    route: '/statsettlementapply',
    group: 'settlement',
    icon: 'chart',
    needs: [statOrder.balance],
    screen: () => import('../src/screens/stat/D0Screen.tsx'),
  }),
];
