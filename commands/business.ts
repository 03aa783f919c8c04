import { endpoints, type Output } from '../contract/index.ts';
import type { Command } from './types.ts';
import { action, rowAction, screen } from './types.ts';

const { merchant, agent, channel, simulator, merchantOrder, merchantPayout } = endpoints;

type Secrets = Output<typeof merchant.create>;

const merchantForm = () => import('../src/screens/merchant/MerchantForm.tsx');
const merchantSecrets = () => import('../src/screens/merchant/MerchantSecrets.tsx');
const resetSecretForm = () => import('../src/screens/merchant/ResetSecretForm.tsx');
const freezeForm = () => import('../src/screens/merchant/FreezeForm.tsx');
const agentForm = () => import('../src/screens/agent/AgentForm.tsx');
const channelForm = () => import('../src/screens/channel/ChannelForm.tsx');
const lostCallback = () => import('../src/screens/simulator/LostCallback.tsx');

/** Merchants, agents, channels and the simulator's test payer: the platform's business set-up. */
export const businessCommands: readonly Command[] = [
  screen({
    id: 'merchant.list',
    route: '/merchant',
    group: 'business',
    icon: 'bank',
    shortcut: 'g n',
    needs: [merchant.list, merchant.create, merchant.update, merchant.freeze],
    screen: () => import('../src/screens/merchant/MerchantScreen.tsx'),
  }),
  action({
    id: 'merchant.create',
    icon: 'plus',
    needs: [merchant.create],
    run: async (c) => {
      const made = (await c.dialog(merchantForm, {})) as Secrets | undefined;
      if (!made) return;
      c.refresh();
      await c.dialog(merchantSecrets, { secrets: made, reason: 'created' as const });
    },
  }),
  rowAction('merchant', {
    id: 'merchant.edit',
    icon: 'edit',
    shortcut: 'e',
    needs: [merchant.update],
    run: async (c, target) => {
      if (await c.dialog(merchantForm, { merchant: target })) c.refresh();
    },
  }),
  rowAction('merchant', {
    id: 'merchant.freeze',
    icon: 'snowflake',
    shortcut: 'z',
    needs: [merchant.freeze],
    when: (target) => target.status === 'active',
    // The form is the danger confirmation: it names the merchant, takes a reason and a red button.
    run: async (c, target) => {
      if (await c.dialog(freezeForm, { merchant: target })) c.refresh();
    },
  }),
  rowAction('merchant', {
    id: 'merchant.unfreeze',
    icon: 'power',
    shortcut: 'z',
    needs: [merchant.freeze],
    when: (target) => target.status === 'frozen',
    confirm: { danger: true },
    run: async (c, target) => {
      await c.call(merchant.freeze, { id: target.id, frozen: false });
      c.toast('success', c.t('screens.merchant.unfrozen', { code: target.code }));
      c.refresh();
    },
  }),
  rowAction('merchant', {
    id: 'merchant.resetSecret',
    icon: 'key',
    shortcut: 'r',
    needs: [merchant.resetSecret],
    run: async (c, target) => {
      const fresh = (await c.dialog(resetSecretForm, { merchant: target })) as Secrets | undefined;
      if (fresh) await c.dialog(merchantSecrets, { secrets: fresh, reason: 'reset' as const });
    },
  }),
  rowAction('merchant', {
    id: 'merchant.payins',
    icon: 'list',
    shortcut: 'o',
    needs: [merchantOrder.list],
    run: (c, target) => c.navigate(`/order?merchantId=${target.id}`),
  }),
  rowAction('merchant', {
    id: 'merchant.payouts',
    icon: 'send',
    shortcut: 'y',
    needs: [merchantPayout.list],
    run: (c, target) => c.navigate(`/payout?merchantId=${target.id}`),
  }),

  screen({
    id: 'agent.list',
    route: '/agent',
    group: 'business',
    icon: 'users',
    shortcut: 'g b',
    needs: [agent.list, agent.create, agent.update],
    screen: () => import('../src/screens/agent/AgentScreen.tsx'),
  }),
  action({
    id: 'agent.create',
    icon: 'plus',
    needs: [agent.create],
    run: async (c) => {
      const made = (await c.dialog(agentForm, {})) as { code: string } | undefined;
      if (!made) return;
      c.toast('success', c.t('screens.agent.created', { code: made.code }));
      c.refresh();
    },
  }),
  rowAction('agent', {
    id: 'agent.edit',
    icon: 'edit',
    shortcut: 'e',
    needs: [agent.update],
    run: async (c, target) => {
      if (await c.dialog(agentForm, { agent: target })) c.refresh();
    },
  }),
  rowAction('agent', {
    id: 'agent.disable',
    icon: 'power',
    shortcut: 's',
    needs: [agent.update],
    when: (target) => target.status === 'active',
    confirm: { danger: true },
    run: async (c, target) => {
      await c.call(agent.update, { id: target.id, status: 'disabled' });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  }),
  rowAction('agent', {
    id: 'agent.enable',
    icon: 'power',
    shortcut: 's',
    needs: [agent.update],
    when: (target) => target.status === 'disabled',
    run: async (c, target) => {
      await c.call(agent.update, { id: target.id, status: 'active' });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  }),
  rowAction('agent', {
    id: 'agent.merchants',
    icon: 'bank',
    shortcut: 'm',
    needs: [merchant.list],
    run: (c, target) => c.navigate(`/merchant?agentId=${target.id}`),
  }),

  screen({
    id: 'channel.list',
    route: '/channel',
    group: 'business',
    icon: 'zap',
    shortcut: 'g h',
    needs: [channel.list, channel.create, channel.update],
    screen: () => import('../src/screens/channel/ChannelScreen.tsx'),
  }),
  action({
    id: 'channel.create',
    icon: 'plus',
    needs: [channel.create],
    run: async (c) => {
      if (await c.dialog(channelForm, {})) c.refresh();
    },
  }),
  rowAction('channel', {
    id: 'channel.edit',
    icon: 'edit',
    shortcut: 'e',
    needs: [channel.update],
    run: async (c, target) => {
      if (await c.dialog(channelForm, { channel: target })) c.refresh();
    },
  }),
  rowAction('channel', {
    id: 'channel.disable',
    icon: 'power',
    shortcut: 's',
    needs: [channel.update],
    when: (target) => target.status === 'active',
    confirm: { danger: true },
    run: async (c, target) => {
      await c.call(channel.update, { id: target.id, status: 'disabled' });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  }),
  rowAction('channel', {
    id: 'channel.enable',
    icon: 'power',
    shortcut: 's',
    needs: [channel.update],
    when: (target) => target.status === 'disabled',
    run: async (c, target) => {
      await c.call(channel.update, { id: target.id, status: 'active' });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  }),

  screen({
    id: 'simulator.list',
    route: '/simulator',
    group: 'business',
    icon: 'play',
    shortcut: 'g u',
    needs: [simulator.pay, simulator.payout],
    screen: () => import('../src/screens/simulator/SimulatorScreen.tsx'),
  }),
  rowAction('simulatorPayin', {
    id: 'simulator.pay',
    icon: 'check',
    shortcut: 'p',
    needs: [simulator.pay],
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
    run: async (c, order) => {
      await c.call(simulator.pay, { orderNo: order.orderNo, result: 'fail' });
      c.toast('success', c.t('screens.simulator.failed', { orderNo: order.orderNo }));
      c.refresh();
    },
  }),
  rowAction('simulatorPayout', {
    id: 'simulator.payoutSuccess',
    icon: 'check',
    shortcut: 'p',
    needs: [simulator.payout],
    run: async (c, order) => {
      await c.call(simulator.payout, { orderNo: order.orderNo, result: 'success' });
      c.toast('success', c.t('screens.simulator.payoutDone', { orderNo: order.orderNo }));
      c.refresh();
    },
  }),
  rowAction('simulatorPayout', {
    id: 'simulator.payoutFail',
    icon: 'close',
    shortcut: 'd',
    needs: [simulator.payout],
    run: async (c, order) => {
      await c.call(simulator.payout, { orderNo: order.orderNo, result: 'fail' });
      c.toast('success', c.t('screens.simulator.payoutFailed', { orderNo: order.orderNo }));
      c.refresh();
    },
  }),
];
