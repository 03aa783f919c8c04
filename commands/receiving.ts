import { endpoints } from '../contract/index.ts';
import {
  callThenRefresh,
  createAction,
  deleteAction,
  editAction,
  openDialog,
  statusToggle,
} from './builders.ts';
import { type Command, type Contexts, rowAction, screen } from './types.ts';

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
    run: callThenRefresh(receivingAccount.status, (a: Contexts['receivingAccount']) => ({
      id: a.id,
      status,
    })),
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

  createAction(
    'receivingAccount.createPublic',
    [receivingAccount.create],
    openDialog(accountForm, () => ({ kind: 'public' as const })),
    'A',
  ),
  createAction(
    'receivingAccount.createCard',
    [receivingAccount.create, accountHolder.list],
    openDialog(accountForm, () => ({ kind: 'card' as const })),
    'C',
  ),
  editAction(
    'receivingAccount',
    'receivingAccount.edit',
    receivingAccount.update,
    openDialog(accountForm, (account) => ({ kind: account.kind, account })),
  ),
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

  createAction('accountHolder.create', [accountHolder.create], openDialog(holderForm), 'H'),
  editAction(
    'accountHolder',
    'accountHolder.edit',
    accountHolder.update,
    openDialog(holderForm, (holder) => ({ holder })),
  ),
  rowAction('accountHolder', {
    id: 'accountHolder.cards',
    icon: 'wallet',
    shortcut: 'c',
    needs: [receivingAccount.list],
    run: (c, holder) => c.navigate(`/receiving/cards?holderId=${holder.id}`),
  }),

  createAction(
    'cardBinding.create',
    [cardBinding.create, receivingAccount.list],
    openDialog(bindingForm),
    'B',
  ),
  deleteAction('cardBinding', 'cardBinding.delete', cardBinding.delete),

  createAction('holderNumber.create', [holderNumber.create, accountHolder.list], openDialog(numberForm), 'U'),
  ...statusToggle('holderNumber', 'holderNumber', holderNumber.update),
];
