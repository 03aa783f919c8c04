import { endpoints, type Output } from '../contract/index.ts';
import {
  callThenRefresh,
  editAction,
  endpointAction,
  endpointRowAction,
  endpointScreen,
  formActions,
  listLink,
  openDialog,
  statusToggle,
} from './builders.ts';
import type { Command } from './types.ts';
import { rowAction, screen } from './types.ts';

const { merchant, agent, channel, simulator, merchantOrder, merchantPayout } = endpoints;

type Secrets = Output<typeof merchant.create>;

const merchantForm = () => import('../src/screens/merchant/MerchantForm.tsx');
const merchantSecrets = () => import('../src/screens/merchant/MerchantSecrets.tsx');
const resetSecretForm = () => import('../src/screens/merchant/ResetSecretForm.tsx');
const freezeForm = () => import('../src/screens/merchant/FreezeForm.tsx');
const agentForm = () => import('../src/screens/agent/AgentForm.tsx');
const channelForm = () => import('../src/screens/channel/ChannelForm.tsx');
const lostCallback = () => import('../src/screens/simulator/LostCallback.tsx');

/** The simulated channel answers an order (without its lost-callback twist), said by its number. */
const answer = (
  endpoint: typeof simulator.pay | typeof simulator.payout,
  result: 'success' | 'fail',
  said: string,
) =>
  callThenRefresh(endpoint, (order: { orderNo: string }) => ({ orderNo: order.orderNo, result }), {
    message: said,
    params: (order) => ({ orderNo: order.orderNo }),
  });

/** Merchants, agents, channels and the simulator's test payer: the platform's business set-up. */
export const businessCommands: readonly Command[] = [
  endpointScreen([merchant.list, merchant.create, merchant.update, merchant.freeze], {
    route: '/merchant',
    group: 'business',
    icon: 'bank',
    shortcut: 'g n',
    screen: () => import('../src/screens/merchant/MerchantScreen.tsx'),
  }),
  endpointAction(merchant.create, {
    icon: 'plus',
    shortcut: '+ m',
    run: async (c) => {
      const made = (await c.dialog(merchantForm, {})) as Secrets | undefined;
      if (!made) return;
      c.refresh();
      await c.dialog(merchantSecrets, { secrets: made, reason: 'created' as const });
    },
  }),
  editAction(
    'merchant',
    merchant.update,
    openDialog(merchantForm, (target) => ({ merchant: target })),
  ),
  endpointRowAction('merchant', merchant.freeze, {
    icon: 'snowflake',
    shortcut: 'z',
    when: (target) => target.status === 'active',
    // The form is the danger confirmation: it names the merchant, takes a reason and a red button.
    run: openDialog(freezeForm, (target) => ({ merchant: target })),
  }),
  rowAction('merchant', {
    id: 'merchant.unfreeze',
    icon: 'power',
    shortcut: 'z',
    needs: [merchant.freeze],
    when: (target) => target.status === 'frozen',
    confirm: { danger: true },
    run: callThenRefresh(merchant.freeze, (target) => ({ id: target.id, frozen: false }), {
      message: 'screens.merchant.unfrozen',
      params: (target) => ({ code: target.code }),
    }),
  }),
  endpointRowAction('merchant', merchant.resetSecret, {
    icon: 'key',
    shortcut: 'r',
    run: async (c, target) => {
      const fresh = (await c.dialog(resetSecretForm, { merchant: target })) as Secrets | undefined;
      if (fresh) await c.dialog(merchantSecrets, { secrets: fresh, reason: 'reset' as const });
    },
  }),
  listLink(
    'merchant',
    'merchant.payins',
    merchantOrder.list,
    { icon: 'list', shortcut: 'o' },
    (target) => `/order?merchantId=${target.id}`,
  ),
  listLink(
    'merchant',
    'merchant.payouts',
    merchantPayout.list,
    { icon: 'send', shortcut: 'y' },
    (target) => `/payout?merchantId=${target.id}`,
  ),

  endpointScreen([agent.list, agent.create, agent.update], {
    route: '/agent',
    group: 'business',
    icon: 'users',
    shortcut: 'g b',
    screen: () => import('../src/screens/agent/AgentScreen.tsx'),
  }),
  endpointAction(agent.create, {
    icon: 'plus',
    shortcut: '+ a',
    run: async (c) => {
      const made = (await c.dialog(agentForm, {})) as { code: string } | undefined;
      if (!made) return;
      c.toast('success', c.t('screens.agent.created', { code: made.code }));
      c.refresh();
    },
  }),
  editAction(
    'agent',
    agent.update,
    openDialog(agentForm, (target) => ({ agent: target })),
  ),
  ...statusToggle('agent', 'agent', agent.update),
  listLink(
    'agent',
    'agent.merchants',
    merchant.list,
    { icon: 'bank', shortcut: 'm' },
    (target) => `/merchant?agentId=${target.id}`,
  ),

  endpointScreen([channel.list, channel.create, channel.update], {
    route: '/channel',
    group: 'business',
    icon: 'zap',
    shortcut: 'g h',
    screen: () => import('../src/screens/channel/ChannelScreen.tsx'),
  }),
  ...formActions('channel', channel.create, channel.update, channelForm, (target) => ({ channel: target }), {
    shortcut: '+ c',
  }),
  ...statusToggle('channel', 'channel', channel.update),

  screen({
    id: 'simulator.list',
    route: '/simulator',
    group: 'business',
    icon: 'play',
    shortcut: 'g u',
    needs: [simulator.pay, simulator.payout],
    screen: () => import('../src/screens/simulator/SimulatorScreen.tsx'),
  }),
  endpointRowAction('simulatorPayin', simulator.pay, {
    icon: 'check',
    shortcut: 'p',
    run: async (c, order) => {
      const paid = await c.call(simulator.pay, { orderNo: order.orderNo, result: 'success' });
      c.toast('success', c.t('screens.simulator.paid', { orderNo: paid.orderNo, utr: paid.utr ?? '' }));
      c.refresh();
    },
  }),
  rowAction('simulatorPayin', {
    id: 'simulator.payLost',
    icon: 'zap',
    shortcut: 'l',
    needs: [simulator.pay],
    run: async (c, order) => {
      const paid = await c.call(simulator.pay, { orderNo: order.orderNo, result: 'success', notify: false });
      c.refresh();
      await c.dialog(lostCallback, { orderNo: paid.orderNo, utr: paid.utr ?? '' });
    },
  }),
  rowAction('simulatorPayin', {
    id: 'simulator.fail',
    icon: 'close',
    shortcut: 'd',
    needs: [simulator.pay],
    run: answer(simulator.pay, 'fail', 'screens.simulator.failed'),
  }),
  rowAction('simulatorPayout', {
    id: 'simulator.payoutSuccess',
    icon: 'check',
    shortcut: 'p',
    needs: [simulator.payout],
    run: answer(simulator.payout, 'success', 'screens.simulator.payoutDone'),
  }),
  rowAction('simulatorPayout', {
    id: 'simulator.payoutFail',
    icon: 'close',
    shortcut: 'd',
    needs: [simulator.payout],
    run: answer(simulator.payout, 'fail', 'screens.simulator.payoutFailed'),
  }),
];
