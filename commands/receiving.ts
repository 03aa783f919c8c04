import { type Endpoint, endpoints } from '../contract/index.ts';
import {
  callAgain,
  callThenRefresh,
  createAction,
  deleteAction,
  editAction,
  endpointScreen,
  formActions,
  listLink,
  openDialog,
  statusToggle,
} from './builders.ts';
import { type Command, type Contexts, type IconName, rowAction, screen } from './types.ts';

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
    run: callThenRefresh(
      receivingAccount.status,
      (a: Contexts['receivingAccount']) => ({ id: a.id, status }),
      // Undone by the status it had.
      {
        undo: callAgain(receivingAccount.status, (a: Contexts['receivingAccount']) => ({
          id: a.id,
          status: a.status,
        })),
      },
    ),
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
  endpointScreen([accountHolder.list], {
    route: '/receiving/holders',
    group: 'business',
    icon: 'users',
    screen: () => import('../src/screens/receiving/HoldersScreen.tsx'),
  }),
  endpointScreen([cardBinding.list], {
    route: '/receiving/bindings',
    group: 'business',
    icon: 'link',
    screen: () => import('../src/screens/receiving/BindingsScreen.tsx'),
  }),
  endpointScreen([holderNumber.list], {
    route: '/receiving/numbers',
    group: 'business',
    icon: 'list',
    screen: () => import('../src/screens/receiving/NumbersScreen.tsx'),
  }),

  createAction(
    [receivingAccount.create],
    openDialog(accountForm, () => ({ kind: 'public' as const })),
    { shortcut: 'A', id: 'receivingAccount.createPublic' },
  ),
  createAction(
    [receivingAccount.create, accountHolder.list],
    openDialog(accountForm, () => ({ kind: 'card' as const })),
    { shortcut: 'C', id: 'receivingAccount.createCard' },
  ),
  editAction(
    'receivingAccount',
    receivingAccount.update,
    openDialog(accountForm, (account) => ({ kind: account.kind, account })),
  ),
  statusAction('pause', 'paused', 'p', ['active']),
  statusAction('activate', 'active', 'a', ['paused', 'frozen']),
  statusAction('freeze', 'frozen', 'f', ['active', 'paused'], true),
  // Where an account leads, from its row or its palette hit: its statement's import (`import 0012`: the
  // import opens on it), the pay-ins routed to it (the pay-in list's own filter), its bindings.
  ...(
    [
      [
        'importStatement',
        endpoints.statement.import,
        'upload',
        'i',
        (id) => `/receiving/statements?accountId=${id}`,
      ],
      ['orders', endpoints.merchantOrder.list, 'list', 'o', (id) => `/order?receivingAccountId=${id}`],
      ['bindings', cardBinding.list, 'zap', 'b', (id) => `/receiving/bindings?accountId=${id}`],
    ] as const satisfies readonly (readonly [string, Endpoint, IconName, string, (id: number) => string])[]
  ).map(([name, list, icon, shortcut, to]) =>
    listLink('receivingAccount', `receivingAccount.${name}`, list, { icon, shortcut }, (a) => to(a.id)),
  ),

  ...formActions(
    'accountHolder',
    accountHolder.create,
    accountHolder.update,
    holderForm,
    (holder) => ({ holder }),
    {
      shortcut: 'H',
    },
  ),
  listLink(
    'accountHolder',
    'accountHolder.cards',
    receivingAccount.list,
    { icon: 'wallet', shortcut: 'c' },
    (holder) => `/receiving/cards?holderId=${holder.id}`,
  ),

  createAction([cardBinding.create, receivingAccount.list], openDialog(bindingForm), { shortcut: 'B' }),
  deleteAction('cardBinding', cardBinding.delete),

  createAction([holderNumber.create, accountHolder.list], openDialog(numberForm), { shortcut: 'U' }),
  ...statusToggle('holderNumber', 'holderNumber', holderNumber.update),
];
