import { endpoints } from '../contract/index.ts';
import { action, type Command, type Contexts, rowAction, screen } from './types.ts';

const { receivingAccount, accountHolder, cardBinding, holderNumber } = endpoints;
type Status = Contexts['receivingAccount']['status'];

const accountForm = () => import('../src/screens/receiving/AccountForm.tsx');
const holderForm = () => import('../src/screens/receiving/HolderForm.tsx');
const bindingForm = () => import('../src/screens/receiving/BindingForm.tsx');
const numberForm = () => import('../src/screens/receiving/NumberForm.tsx');

/** A status change of an account: the key, the states it is offered from, whether it asks first. */
const statusAction = (
  id: string,
  status: Status,
  shortcut: string,
  from: readonly Status[],
  danger = false,
) =>
  rowAction('receivingAccount', {
    id: `receivingAccount.${id}`,
    icon: 'power',
    shortcut,
    needs: [receivingAccount.status],
    when: (a) => from.includes(a.status),
    ...(danger ? { confirm: { danger: true } } : {}),
    run: async (c, a) => {
      await c.call(receivingAccount.status, { id: a.id, status });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  });

/**
 * Receiving accounts (OPERATIONS.md section 2): the platform's public accounts and the donor cards lent by
 * account holders, their bindings to bank channels and the holders' registered numbers.
 */
export const receivingCommands: readonly Command[] = [
  screen({
    id: 'receivingAccount.public',
    route: '/receiving/public',
    group: 'business',
    icon: 'bank',
    shortcut: 'g j',
    needs: [receivingAccount.list],
    screen: () => import('../src/screens/receiving/PublicAccountsScreen.tsx'),
  }),
  screen({
    id: 'receivingAccount.cards',
    route: '/receiving/cards',
    group: 'business',
    icon: 'wallet',
    shortcut: 'g z',
    needs: [receivingAccount.list],
    screen: () => import('../src/screens/receiving/CardsScreen.tsx'),
  }),
  screen({
    id: 'accountHolder.list',
    route: '/receiving/holders',
    group: 'business',
    icon: 'users',
    needs: [accountHolder.list],
    screen: () => import('../src/screens/receiving/HoldersScreen.tsx'),
  }),
  screen({
    id: 'cardBinding.list',
    route: '/receiving/bindings',
    group: 'business',
    icon: 'link',
    needs: [cardBinding.list],
    screen: () => import('../src/screens/receiving/BindingsScreen.tsx'),
  }),
  screen({
    id: 'holderNumber.list',
    route: '/receiving/numbers',
    group: 'business',
    icon: 'list',
    needs: [holderNumber.list],
    screen: () => import('../src/screens/receiving/NumbersScreen.tsx'),
  }),

  action({
    id: 'receivingAccount.createPublic',
    icon: 'plus',
    shortcut: 'A',
    needs: [receivingAccount.create],
    run: async (c) => {
      if (await c.dialog(accountForm, { kind: 'public' as const })) c.refresh();
    },
  }),
  action({
    id: 'receivingAccount.createCard',
    icon: 'plus',
    shortcut: 'C',
    needs: [receivingAccount.create, accountHolder.list],
    run: async (c) => {
      if (await c.dialog(accountForm, { kind: 'card' as const })) c.refresh();
    },
  }),
  rowAction('receivingAccount', {
    id: 'receivingAccount.edit',
    icon: 'edit',
    shortcut: 'e',
    needs: [receivingAccount.update],
    run: async (c, account) => {
      if (await c.dialog(accountForm, { kind: account.kind, account })) c.refresh();
    },
  }),
  statusAction('pause', 'paused', 'p', ['active']),
  statusAction('activate', 'active', 'a', ['paused', 'frozen']),
  statusAction('freeze', 'frozen', 'f', ['active', 'paused'], true),
  rowAction('receivingAccount', {
    id: 'receivingAccount.bindings',
    icon: 'zap',
    shortcut: 'b',
    needs: [cardBinding.list],
    run: (c, account) => c.navigate(`/receiving/bindings?accountId=${account.id}`),
  }),

  action({
    id: 'accountHolder.create',
    icon: 'plus',
    shortcut: 'H',
    needs: [accountHolder.create],
    run: async (c) => {
      if (await c.dialog(holderForm, {})) c.refresh();
    },
  }),
  rowAction('accountHolder', {
    id: 'accountHolder.edit',
    icon: 'edit',
    shortcut: 'e',
    needs: [accountHolder.update],
    run: async (c, holder) => {
      if (await c.dialog(holderForm, { holder })) c.refresh();
    },
  }),
  rowAction('accountHolder', {
    id: 'accountHolder.cards',
    icon: 'wallet',
    shortcut: 'c',
    needs: [receivingAccount.list],
    run: (c, holder) => c.navigate(`/receiving/cards?holderId=${holder.id}`),
  }),

  action({
    id: 'cardBinding.create',
    icon: 'plus',
    shortcut: 'B',
    needs: [cardBinding.create, receivingAccount.list],
    run: async (c) => {
      if (await c.dialog(bindingForm, {})) c.refresh();
    },
  }),
  rowAction('cardBinding', {
    id: 'cardBinding.delete',
    icon: 'trash',
    shortcut: 'Delete',
    needs: [cardBinding.delete],
    confirm: { danger: true },
    run: async (c, binding) => {
      await c.call(cardBinding.delete, { id: binding.id });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  }),

  action({
    id: 'holderNumber.create',
    icon: 'plus',
    shortcut: 'U',
    needs: [holderNumber.create, accountHolder.list],
    run: async (c) => {
      if (await c.dialog(numberForm, {})) c.refresh();
    },
  }),
  rowAction('holderNumber', {
    id: 'holderNumber.disable',
    icon: 'power',
    shortcut: 's',
    needs: [holderNumber.update],
    when: (n) => n.status === 'active',
    confirm: { danger: true },
    run: async (c, n) => {
      await c.call(holderNumber.update, { id: n.id, status: 'disabled' });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  }),
  rowAction('holderNumber', {
    id: 'holderNumber.enable',
    icon: 'power',
    shortcut: 's',
    needs: [holderNumber.update],
    when: (n) => n.status === 'disabled',
    run: async (c, n) => {
      await c.call(holderNumber.update, { id: n.id, status: 'active' });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  }),
];
