import { type Endpoint, endpoints } from '../contract/index.ts';
import { statementLine } from '../contract/machines.ts';
import { endpointRowAction, endpointScreen, listLink, openDialog } from './builders.ts';
import { type Command, type Contexts, type IconName, type RunContext, rowAction, screen } from './types.ts';

const { statement } = endpoints;
type Line = Contexts['statementLineRow'];
type AccountRow = Contexts['accountRow'];

const matchDialog = () => import('../src/screens/statement/MatchDialog.tsx');
const postDialog = () => import('../src/screens/statement/PostDialog.tsx');
const dismissDialog = () => import('../src/screens/statement/DismissDialog.tsx');
const downloadImport = () => import('../src/screens/statement/download.ts');
const feedDialog = () => import('../src/screens/statement/FeedDialog.tsx');

/** Waiting for a person: ready to post, proposed, or an exception. */
const open = (l: Line) => statementLine.sets.open.includes(l.status);
/** What posting takes: a ready or proposed line not waiting for a second person already. */
const postable = (l: Line) => statementLine.is('postable', l.status) && l.approvalId === null;
/** What dismissing takes: an open line not waiting for a second person already. */
const dismissable = (l: Line) => open(l) && l.approvalId === null;

/** A pay-in by its number, its drawer open in the pay-in list (which reaches back 60 days). */
export const orderPath = (orderNo: string) => `/order?range=60d&order=${encodeURIComponent(orderNo)}`;

/**
 * The credits of a business day in the statement flow: of the row's account, or (a channel's row: the
 * lines know their account, not the channel) of every account.
 */
export const creditsOfDay = (row: Pick<AccountRow, 'day' | 'accountId'>) =>
  `/receiving/statement?${row.accountId === null ? '' : `accountId=${row.accountId}&`}from=${row.day}&to=${row.day}&direction=credit&status=unmatched`;

/** The paid orders no statement line proves behind a row's `unproved` figure (its day, account or channel). */
export const paidOrdersOfDay = (row: Pick<AccountRow, 'day' | 'accountId' | 'channelId' | 'label'>) =>
  `/stat/unproved?day=${row.day}${row.accountId === null ? '' : `&accountId=${row.accountId}`}${
    row.channelId === null ? '' : `&channelId=${row.channelId}`
  }&label=${encodeURIComponent(row.label)}`;

/** The checked rows may hold none the action applies to (all of them matched meanwhile, say). */
function noneApplies(c: RunContext, lines: readonly Line[]): boolean {
  if (lines.length) return false;
  c.toast('warning', c.t('statement.queue.noneApplies'));
  return true;
}

async function dismiss(c: RunContext, lines: readonly Line[]) {
  if (noneApplies(c, lines)) return;
  if (await c.dialog(dismissDialog, { lines })) c.refresh();
}

/** Posting is a money decision: the dialog asks a reason and the Google code (docs/SECURITY.md). */
async function accept(c: RunContext, lines: readonly Line[]) {
  if (noneApplies(c, lines)) return;
  if (await c.dialog(postDialog, { lines })) c.refresh();
}

/**
 * A decision on lines, on the checked rows (`statement.<name>Checked`, offered with several checked) and
 * on one row, under one key: the bulk one first, so that with several rows checked the key finds it.
 */
const onLines = (
  name: 'accept' | 'dismiss',
  icon: IconName,
  shortcut: string,
  endpoint: Endpoint,
  fits: (l: Line) => boolean,
  decide: (c: RunContext, lines: readonly Line[]) => Promise<void>,
) => [
  rowAction('statementLineRow', {
    id: `statement.${name}Checked`,
    icon,
    shortcut,
    needs: [endpoint],
    bulk: true,
    run: (c) => decide(c, c.selection('statementLineRow').filter(fits)),
  }),
  rowAction('statementLineRow', {
    id: `statement.${name}`,
    icon,
    shortcut,
    needs: [endpoint],
    when: fits,
    run: (c, line) => decide(c, [line]),
  }),
];

/**
 * Bank statements (OPERATIONS.md section 2): the import screen (a mapping, a file or pasted text, a
 * preview, then the import with its progress), each account's statement flow, the exception queue where
 * open lines are matched to an order (m), accepted (a) or dismissed with a reason (d), one by one or the
 * checked rows at once, and matching run again (Shift-R); and the reconciliation per day and account.
 */
export const statementCommands: readonly Command[] = [
  endpointScreen([statement.import], {
    route: '/receiving/statements',
    group: 'business',
    icon: 'upload',
    screen: () => import('../src/screens/statement/ImportScreen.tsx'),
  }),
  endpointScreen([statement.list], {
    route: '/receiving/statement',
    group: 'business',
    icon: 'list',
    screen: () => import('../src/screens/statement/LinesScreen.tsx'),
  }),
  endpointScreen([statement.exceptions], {
    route: '/receiving/exceptions',
    group: 'business',
    icon: 'filter',
    screen: () => import('../src/screens/statement/ExceptionsScreen.tsx'),
  }),
  // The reconciliation reads statements: offered to who may read them (a merchant user may read the
  // balance endpoint's D0 view, never this one).
  screen({
    id: 'statOrder.reconciliation',
    route: '/stat/stataccount',
    group: 'settlement',
    icon: 'chart',
    needs: [statement.list],
    screen: () => import('../src/screens/stat/AccountScreen.tsx'),
  }),

  endpointScreen([endpoints.statOrder.unproved], {
    route: '/stat/unproved',
    group: 'settlement',
    icon: 'list',
    hidden: true,
    screen: () => import('../src/screens/stat/UnprovedScreen.tsx'),
  }),

  endpointRowAction('statementLineRow', statement.match, {
    icon: 'link',
    shortcut: 'm',
    when: (l) => open(l) && l.direction === 'credit' && l.approvalId === null,
    run: openDialog(matchDialog, (line) => ({ line })),
  }),
  ...onLines('accept', 'check', 'a', statement.accept, postable, accept),
  ...onLines('dismiss', 'close', 'd', statement.dismiss, dismissable, dismiss),
  // A dismissal taken back (the dismissal's undo, later): matched again, a payment waiting for a person.
  endpointRowAction('statementLineRow', statement.reopen, {
    icon: 'refresh',
    shortcut: 'b',
    when: (l) => l.status === statementLine.state.dismissed,
    run: async (c, line) => {
      const done = await c.call(statement.reopen, { lineIds: [line.id] });
      c.toast('success', c.t('statement.reopen.done', done));
      c.refresh();
    },
  }),
  // On a row (Shift-R, like the T+N run, which stays the global Shift-R elsewhere): every open line of
  // every account goes through matching again, orders paid or created since included.
  endpointRowAction('statementLineRow', statement.rematch, {
    icon: 'refresh',
    shortcut: 'R',
    when: open,
    run: async (c) => {
      const done = await c.call(statement.rematch, {});
      c.toast('success', c.t('statement.queue.rematched', done));
      c.refresh();
    },
  }),
  listLink(
    'statementLineRow',
    'statement.order',
    endpoints.merchantOrder.list,
    { icon: 'eye', shortcut: 'o', when: (l) => l.payinNo !== null || l.candidateNo !== null },
    (l) => orderPath(l.payinNo ?? l.candidateNo ?? ''),
  ),

  endpointRowAction('statementImportRow', statement.file, {
    icon: 'download',
    shortcut: 'd',
    run: async (c, row) => {
      const { saveImportFile } = await downloadImport();
      if (await saveImportFile(row))
        c.toast('success', c.t('statement.import.downloaded', { fileName: row.fileName }));
    },
  }),
  // Every ready line of the import at once (the money decision of a whole statement).
  rowAction('statementImportRow', {
    id: 'statement.post',
    icon: 'check',
    shortcut: 'p',
    needs: [statement.accept],
    when: (row) => row.wouldPay.count > 0,
    run: openDialog(postDialog, (row) => ({ import: row })),
  }),
  listLink(
    'statementImportRow',
    'statement.importLines',
    statement.list,
    { icon: 'list', shortcut: 'l' },
    (row) => `/receiving/statement?importId=${row.id}`,
  ),

  listLink(
    'accountRow',
    'statOrder.unmatchedLines',
    statement.list,
    { icon: 'list', shortcut: 'u', when: (r) => r.unmatchedCredits.count > 0 },
    creditsOfDay,
  ),
  listLink(
    'accountRow',
    'statOrder.unprovedOrders',
    endpoints.statOrder.unproved,
    { icon: 'eye', shortcut: 'p', when: (r) => r.unproved.count > 0 },
    paidOrdersOfDay,
  ),
  listLink(
    'accountRow',
    'statOrder.accountLines',
    statement.list,
    { icon: 'list', shortcut: 'l', when: (r) => r.accountId !== null },
    (r) => `/receiving/statement?accountId=${r.accountId}&from=${r.day}&to=${r.day}`,
  ),
  // The account's bank feed (SFTP): statements that arrive by themselves and pay as the bank's word.
  rowAction('receivingAccount', {
    id: 'statementFeed.open',
    icon: 'link',
    shortcut: 'l',
    needs: [endpoints.statementFeed.get],
    run: openDialog(feedDialog, (account) => ({ account })),
  }),
];
