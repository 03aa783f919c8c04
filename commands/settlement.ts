import { endpoints } from '../contract/index.ts';
import { type SettlementAction, settlement as settlementMachine } from '../contract/machines.ts';
import { deleteAction, editAction, endpointScreen, openDialog } from './builders.ts';
import { action, type Command, type Contexts, rowAction, screen } from './types.ts';

type Settlement = Contexts['settlement'];
type Wallet = Settlement['wallet'];

const applyDialog = () => import('../src/screens/settlement/ApplyDialog.tsx');
const decisionDialog = () => import('../src/screens/settlement/DecisionDialog.tsx');

/** Each wallet's endpoint group (`settlementPayment` is the collection wallet) and its merchant screen. */
export const settlementWallets = {
  collection: { base: 'settlementPayment', route: '/settlementpayment' },
  payout: { base: 'settlementPayout', route: '/settlementpayout' },
} as const;

/**
 * A wallet's settlement commands. Both wallets' applications share the `settlement` context (the
 * platform's queue holds both), so each action is declared once per wallet, offered only on rows of its
 * own wallet: a role holding one wallet's permission never gets a button the server would refuse.
 */
function walletCommands(wallet: Wallet): Command[] {
  const { base, route } = settlementWallets[wallet];
  const api = endpoints[base];
  const mine = (s: Settlement, act: SettlementAction) =>
    s.wallet === wallet && settlementMachine.can(act, s.status);
  const decide = (decision: 'confirm' | 'complete' | 'reject') =>
    openDialog(decisionDialog, (s: Settlement) => ({ settlement: s, decision }));
  return [
    screen({
      id: `${base}.list`,
      route,
      group: 'settlement',
      icon: wallet === 'collection' ? 'wallet' : 'send',
      ...(wallet === 'collection' ? { shortcut: 'g s' } : {}),
      needs: [api.list],
      screen:
        wallet === 'collection'
          ? () => import('../src/screens/settlement/CollectionSettlements.tsx')
          : () => import('../src/screens/settlement/PayoutSettlements.tsx'),
    }),
    action({
      id: `${base}.create`,
      icon: 'plus',
      // Settle out of the collection wallet, or out of the payout wallet.
      shortcut: wallet === 'collection' ? '+ s' : '+ o',
      needs: [api.create],
      run: openDialog(applyDialog, () => ({ wallet }), route),
    }),
    editAction(
      'settlement',
      api.update,
      openDialog(applyDialog, (s) => ({ wallet, settlement: s })),
      { id: api.update.id, when: (s) => mine(s, 'update') },
    ),
    deleteAction('settlement', api.delete, {
      when: (s) => mine(s, 'cancel'),
      message: 'screens.settlement.cancelled',
      params: (s) => ({ settlementNo: s.settlementNo }),
    }),
    // A confirmation waiting for a second person is decided in the approvals queue, not confirmed again.
    rowAction('settlement', {
      id: `${base}.confirm`,
      icon: 'check',
      shortcut: 'c',
      needs: [api.confirm],
      when: (s) => mine(s, 'confirm') && !s.approval,
      run: decide('confirm'),
    }),
    rowAction('settlement', {
      id: `${base}.complete`,
      icon: 'send',
      shortcut: 'o',
      needs: [api.complete],
      when: (s) => mine(s, 'complete'),
      run: decide('complete'),
    }),
    rowAction('settlement', {
      id: `${base}.reject`,
      icon: 'close',
      shortcut: 'r',
      needs: [api.reject],
      when: (s) => mine(s, 'reject'),
      run: decide('reject'),
    }),
  ];
}

/**
 * Settlement applications: each wallet's list (the merchant applies, edits and cancels; platform users
 * see every merchant's) and the platform's real-time queue of open applications across both wallets,
 * where confirm, complete and reject are single keys.
 */
export const settlementCommands: readonly Command[] = [
  endpointScreen([endpoints.settlementQuery.list], {
    route: '/settlementquery',
    group: 'settlement',
    icon: 'zap',
    shortcut: 'g q',
    screen: () => import('../src/screens/settlement/QueueScreen.tsx'),
  }),
  ...walletCommands('collection'),
  ...walletCommands('payout'),
];
