import { endpoints } from '../contract/index.ts';
import {
  deleteAction,
  endpointAction,
  endpointRowAction,
  endpointScreen,
  formActions,
  openDialog,
  statusToggle,
} from './builders.ts';
import type { Command, Contexts } from './types.ts';

const { telegram } = endpoints;

/** A group's row as `groupUpdate` takes it back (the timestamps are not input). */
const groupInput = ({ id, chatId, name, merchantIds, channelIds, alerts }: Contexts['telegramGroup']) => ({
  id,
  chatId,
  name,
  merchantIds,
  channelIds,
  alerts,
});

const groupForm = () => import('../src/screens/telegram/GroupForm.tsx');
const botForm = () => import('../src/screens/telegram/BotForm.tsx');

/** Telegram alerts (OPERATIONS.md section 4): the bot, the groups and their alert rules, the deliveries. */
export const telegramCommands: readonly Command[] = [
  endpointScreen([telegram.groupList, telegram.deliveryList, telegram.bot], {
    route: '/system/telegram',
    group: 'system',
    icon: 'send',
    // Every `g` + lower-case letter is taken: Shift-T after g.
    shortcut: 'g T',
    screen: () => import('../src/screens/telegram/TelegramScreen.tsx'),
  }),
  endpointAction(telegram.botUpdate, {
    icon: 'key',
    // The dialog is the confirmation: it asks for the Google code.
    run: openDialog(botForm),
  }),
  ...formActions(
    'telegramGroup',
    telegram.groupCreate,
    telegram.groupUpdate,
    groupForm,
    (group) => ({ group }),
    {
      shortcut: '+ g',
      editId: telegram.groupUpdate.id,
    },
  ),
  endpointRowAction('telegramGroup', telegram.test, {
    icon: 'send',
    shortcut: 't',
    when: (group) => group.status === 'active',
    run: async (c, group) => {
      const d = await c.call(telegram.test, { id: group.id });
      if (d.status === 'sent') c.toast('success', c.t('screens.telegram.testSent', { name: group.name }));
      else c.toast('error', c.t('screens.telegram.testFailed', { error: d.lastError ?? '' }));
      c.refresh();
    },
  }),
  ...statusToggle('telegramGroup', 'telegram', telegram.groupUpdate, (group, status) => ({
    ...groupInput(group),
    status,
  })),
  deleteAction('telegramGroup', telegram.groupDelete),
  endpointRowAction('telegramDelivery', telegram.deliveryRetry, {
    icon: 'refresh',
    shortcut: 'r',
    when: (d) => d.status === 'pending',
    run: async (c, d) => {
      const after = await c.call(telegram.deliveryRetry, { id: d.id });
      c.toast(after.status === 'sent' ? 'success' : 'error', c.t(`status.telegramDelivery.${after.status}`));
      c.refresh();
    },
  }),
];
