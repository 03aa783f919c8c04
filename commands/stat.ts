import { endpoints } from '../contract/index.ts';
import { type Command, type Contexts, type RunContext, rowAction, screen } from './types.ts';

const { statOrder } = endpoints;

/**
 * The pay-ins behind an order statistics row, in the order list: its merchant (and channel) and day, on
 * that business day's instants (the zone the report answered in is console state, read lazily).
 */
async function openPayins(c: RunContext, row: Contexts['orderStatRow'], paid: boolean) {
  const { $businessTimeZone, payinsOfDay } = await import('../src/screens/stat/report.ts');
  c.navigate(
    payinsOfDay(
      {
        day: row.day,
        // A merchant user's list is its own already; naming the merchant is for the platform's.
        merchantId: c.userKind === 'platform' ? row.merchantId : undefined,
        channelId: row.channelId,
      },
      $businessTimeZone.get(),
      paid,
    ),
  );
}

/**
 * Reports (OPERATIONS.md section 3): the order, channel and settlement statistics (Shift-G then o, c, s)
 * and the D0 settlement summary, per merchant and business day the collection wallet from opening to
 * closing, checked against the ledger. Merchant users see their own merchant's; the channel statistics
 * are the platform's. An order statistics row opens the pay-ins it counts, so its figures can be checked
 * against the list (o: every pay-in of the day, p: the paid ones, whose count and amount are the row's).
 */
export const statCommands: readonly Command[] = [
  screen({
    id: 'statOrder.orderStats',
    route: '/stat/statorder',
    group: 'settlement',
    icon: 'chart',
    shortcut: 'G o',
    needs: [statOrder.list],
    screen: () => import('../src/screens/stat/OrderStatScreen.tsx'),
  }),
  screen({
    id: 'statOrder.channelStats',
    route: '/stat/statchannel',
    group: 'settlement',
    icon: 'chart',
    shortcut: 'G c',
    needs: [statOrder.channel],
    screen: () => import('../src/screens/stat/ChannelStatScreen.tsx'),
  }),
  screen({
    id: 'statOrder.payoutStats',
    route: '/stat/statpayout',
    group: 'settlement',
    icon: 'chart',
    shortcut: 'G s',
    needs: [statOrder.balance],
    screen: () => import('../src/screens/stat/PayoutStatScreen.tsx'),
  }),
  screen({
    id: 'statOrder.settlementSummary',
    route: '/statsettlementapply',
    group: 'settlement',
    icon: 'chart',
    needs: [statOrder.balance],
    screen: () => import('../src/screens/stat/D0Screen.tsx'),
  }),
  rowAction('orderStatRow', {
    id: 'statOrder.payinsOfDay',
    icon: 'list',
    shortcut: 'o',
    needs: [endpoints.merchantOrder.list],
    when: (r) => r.payinCreated > 0,
    run: (c, r) => openPayins(c, r, false),
  }),
  rowAction('orderStatRow', {
    id: 'statOrder.paidPayinsOfDay',
    icon: 'check',
    shortcut: 'p',
    needs: [endpoints.merchantOrder.list],
    when: (r) => r.payinPaid > 0,
    run: (c, r) => openPayins(c, r, true),
  }),
];
