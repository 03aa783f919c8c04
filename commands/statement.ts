import { type Endpoint, endpoints } from '../contract/index.ts';
import { statementLine } from '../contract/machines.ts';
import { openDialog } from './builders.ts';
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
  screen({
    id: 'statement.import',
    route: '/receiving/statements',
    group: 'business',
    icon: 'upload',
    needs: [statement.import],
    screen: () => import('../src/screens/statement/ImportScreen.tsx'),
  }),
  screen({
    id: 'statement.list',
    route: '/receiving/statement',
    group: 'business',
    icon: 'list',
    needs: [statement.list],
    screen: () => import('../src/screens/statement/LinesScreen.tsx'),
  }),
  screen({
    id: 'statement.exceptions',
    route: '/receiving/exceptions',
    group: 'business',
    icon: 'filter',
    needs: [statement.exceptions],
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

  screen({
    id: 'statOrder.unproved',
    route: '/stat/unproved',
    group: 'settlement',
    icon: 'list',
    hidden: true,
    needs: [endpoints.statOrder.unproved],
    screen: () => import('../src/screens/stat/UnprovedScreen.tsx'),
  }),

  rowAction('statementLineRow', {
    id: 'statement.match',
    icon: 'link',
    shortcut: 'm',
    needs: [statement.match],
    when: (l) => open(l) && l.direction === 'credit' && l.approvalId === null,
    run: openDialog(matchDialog, (line) => ({ line })),
  }),
  ...onLines('accept', 'check', 'a', statement.accept, postable, accept),
  ...onLines('dismiss', 'close', 'd', statement.dismiss, dismissable, dismiss),
  // On a row (Shift-R, like the T+N run, which stays the global Shift-R elsewhere): every open line of
  // every account goes through matching again, orders paid or created since included.
  rowAction('statementLineRow', {
    id: 'statement.rematch',
    icon: 'refresh',
    shortcut: 'R',
    needs: [statement.rematch],
    when: open,
    run: async (c) => {
      const done = await c.call(statement.rematch, {});
      c.toast('success', c.t('statement.queue.rematched', done));
      c.refresh();
    },
  }),
  rowAction('statementLineRow', {
    id: 'statement.order',
    icon: 'eye',
    shortcut: 'o',
    needs: [endpoints.merchantOrder.list],
    when: (l) => l.payinNo !== null || l.candidateNo !== null,
    run: (c, l) => c.navigate(orderPath(l.payinNo ?? l.candidateNo ?? '')),
  }),

  rowAction('statementImportRow', {
    id: 'statement.file',
    icon: 'download',
    shortcut: 'd',
    needs: [statement.file],
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
  rowAction('statementImportRow', {
    id: 'statement.importLines',
    icon: 'list',
    shortcut: 'l',
    needs: [statement.list],
    run: (c, row) => c.navigate(`/receiving/statement?importId=${row.id}`),
  }),

  rowAction('accountRow', {
    id: 'statOrder.unmatchedLines',
    icon: 'list',
    shortcut: 'u',
    needs: [statement.list],
    when: (r) => r.unmatchedCredits.count > 0,
    run: (c, r) => c.navigate(creditsOfDay(r)),
  }),
  rowAction('accountRow', {
    id: 'statOrder.unprovedOrders',
    icon: 'eye',
    shortcut: 'p',
    needs: [endpoints.statOrder.unproved],
    when: (r) => r.unproved.count > 0,
    run: (c, r) => c.navigate(paidOrdersOfDay(r)),
  }),
  rowAction('accountRow', {
    id: 'statOrder.accountLines',
    icon: 'list',
    shortcut: 'l',
    needs: [statement.list],
    when: (r) => r.accountId !== null,
    run: (c, r) => c.navigate(`/receiving/statement?accountId=${r.accountId}&from=${r.day}&to=${r.day}`),
  }),
  // The account's bank feed (SFTP): statements that arrive by themselves and pay as the bank's word.
  rowAction('receivingAccount', {
    id: 'statementFeed.open',
    icon: 'link',
    shortcut: 'l',
    needs: [endpoints.statementFeed.get],
    run: openDialog(feedDialog, (account) => ({ account })),
  }),
];
