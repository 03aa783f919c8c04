import type { ComponentType } from 'react';
import type { Endpoint, endpoints, Input, Output } from '../contract/index.ts';

/** What an action can act on: the row types of the lists, by context name. */
export interface Contexts {
  admin: Output<typeof endpoints.admin.list>['list'][number];
  /** One place the signed-in user is signed in (its own sessions screen). */
  session: Output<typeof endpoints.auth.sessions>['list'][number];
  role: Output<typeof endpoints.role.list>['list'][number];
  log: Output<typeof endpoints.log.list>['list'][number];
  mail: Output<typeof endpoints.mailOutbox.list>['list'][number];
  payin: Output<typeof endpoints.merchantOrder.list>['list'][number];
  payout: Output<typeof endpoints.merchantPayout.list>['list'][number];
  /** A refund of a paid pay-in. */
  refund: Output<typeof endpoints.refund.list>['list'][number];
  recharge: Output<typeof endpoints.merchantRechargeLog.list>['list'][number];
  merchant: Output<typeof endpoints.merchant.list>['list'][number];
  /** A user of one merchant, as the platform manages it (merchant users screen). */
  merchantUser: Output<typeof endpoints.merchantUser.list>['list'][number];
  /** A notice of the system memo. */
  memo: Output<typeof endpoints.memo.list>['list'][number];
  /** An entry of the blocklist (risk rules), applying or removed. */
  blocklistEntry: Output<typeof endpoints.blocklist.list>['list'][number];
  agent: Output<typeof endpoints.agent.list>['list'][number];
  channel: Output<typeof endpoints.channel.list>['list'][number];
  /** A line of the wallet's balance change log (a ledger posting with before / change / after). */
  walletPosting: Output<typeof endpoints.merchantWallet.log>['list'][number];
  /** Orders waiting at the simulator channel, on the simulated users screen (the test payer's keys). */
  simulatorPayin: Output<typeof endpoints.merchantOrder.list>['list'][number];
  simulatorPayout: Output<typeof endpoints.merchantPayout.list>['list'][number];
  /** A T+N settlement line: a merchant's pending (or released) collection net of one business day. */
  tnLine: Output<typeof endpoints.merchantSettlementtn.list>['list'][number];
  /** A T+N settlement run. */
  tnRun: Output<typeof endpoints.settlementtnLog.list>['list'][number];
  /** A maker–checker request waiting for (or decided by) a second platform user. */
  approval: Output<typeof endpoints.approval.list>['list'][number];
  /** A settlement application of either wallet (its `wallet` says which endpoints act on it). */
  settlement: Output<typeof endpoints.settlementPayment.list>['list'][number];
  /** A withdrawal slip (its drawer lists its lines). */
  slip: Output<typeof endpoints.withdrawalSlip.list>['list'][number];
  /** A row of the D0 settlement summary: a merchant's collection wallet over one business day. */
  d0Row: Extract<Output<typeof endpoints.statOrder.balance>, { view: 'd0' }>['list'][number];
  accountRow: Extract<Output<typeof endpoints.statOrder.balance>, { view: 'account' }>['list'][number];
  /** A row of the order statistics: a merchant's (and channel's) orders of one business day. */
  orderStatRow: Output<typeof endpoints.statOrder.list>['list'][number];
  /** A row of the channel statistics: a channel's orders of one business day. */
  channelStatRow: Output<typeof endpoints.statOrder.channel>['list'][number];
  /** A row of the settlement statistics: a merchant wallet over the period. */
  merchantBalanceRow: Extract<
    Output<typeof endpoints.statOrder.balance>,
    { view: 'merchant' }
  >['list'][number];
  statementLineRow: Output<typeof endpoints.statement.list>['list'][number];
  statementImportRow: Output<typeof endpoints.statement.imports>['list'][number];
  /** A receiving account: a public account or a donor card, with today's figures. */
  receivingAccount: Output<typeof endpoints.receivingAccount.list>['list'][number];
  accountHolder: Output<typeof endpoints.accountHolder.list>['list'][number];
  cardBinding: Output<typeof endpoints.cardBinding.list>['list'][number];
  holderNumber: Output<typeof endpoints.holderNumber.list>['list'][number];
  /** A bank's freeze of a receiving account (its drawer lists whose money it holds). */
  accountFreeze: Output<typeof endpoints.accountFreeze.list>['list'][number];
  /** A dispute of a paid pay-in: a chargeback, a complaint or a wrong payment (its drawer lists the evidence). */
  dispute: Output<typeof endpoints.dispute.list>['list'][number];
  /** A platform parameter: its value in force, its default and its kind (which input edits it). */
  parameter: Output<typeof endpoints.parameter.list>['list'][number];
  /** A balance adjustment the platform applied to a merchant wallet. */
  balanceAdjustment: Output<typeof endpoints.balanceAdjustment.list>['list'][number];
  /** A Telegram group the platform alerts, with its alert rules. */
  telegramGroup: Output<typeof endpoints.telegram.groupList>['list'][number];
  /** One alert (or test message) to one Telegram group, with its attempts. */
  telegramDelivery: Output<typeof endpoints.telegram.deliveryList>['list'][number];
}
export type ContextName = keyof Contexts;

/** Menu groups of the sidebar, in display order; their titles are `menu.<id>`. */
export const menuGroups = [
  'orders',
  'funds',
  'settlement',
  'business',
  'settings',
  'security',
  'system',
] as const;
export type MenuGroup = (typeof menuGroups)[number];

export type IconName =
  | 'home'
  | 'minimize'
  | 'users'
  | 'shield'
  | 'list'
  | 'mail'
  | 'key'
  | 'lock'
  | 'menu'
  | 'search'
  | 'maximize'
  | 'globe'
  | 'size'
  | 'logout'
  | 'user'
  | 'plus'
  | 'edit'
  | 'trash'
  | 'refresh'
  | 'keyboard'
  | 'check'
  | 'columns'
  | 'more'
  | 'close'
  | 'chevron'
  | 'chevronDown'
  | 'power'
  | 'wallet'
  | 'upload'
  | 'download'
  | 'send'
  | 'zap'
  | 'bank'
  | 'chart'
  | 'link'
  | 'clipboard'
  | 'filter'
  | 'eye'
  | 'image'
  | 'code'
  | 'snowflake'
  | 'percent'
  | 'play';

/** A dialog component opened by a command: it ends by calling `close` with its result. */
export type DialogComponent<P> = ComponentType<P & { close: (result?: unknown) => void }>;
export type DialogLoader<P> = () => Promise<{ default: DialogComponent<P> }>;

/** What the shell hands to a command's `run`. */
export interface RunContext {
  navigate(to: string): void;
  t(key: string, params?: Record<string, unknown>): string;
  /** Calls an API endpoint through the console's client (errors already shown to the user). */
  call<E extends Endpoint>(endpoint: E, input: Input<E>): Promise<Output<E>>;
  /** Opens a lazily loaded dialog and resolves with what it closes with. */
  dialog<P extends object>(load: DialogLoader<P>, props: P): Promise<unknown>;
  /** Asks for a confirmation; resolves false when declined. */
  confirm(options: { title: string; text: string; danger?: boolean }): Promise<boolean>;
  toast(tone: 'success' | 'error' | 'info' | 'warning', text: string): void;
  /** The running command's title, in the console's language ("Pause account"). */
  title: string;
  /**
   * Says `text` with Undo for a few seconds (src/lib/undo.ts): `undo` is the action's own reverse, never
   * money that moved.
   */
  offerUndo(text: string, undo: () => Promise<unknown>): void;
  /** Runs the undo on offer (Ctrl-Z); resolves when it has run. */
  undo(): Promise<unknown>;
  /** Refetches the data on screen after a change. */
  refresh(): void;
  shell: ShellControls;
  /** The focused table, when a list screen is active and the focus is not in a field. */
  table?: TableControls;
  /** The rows checked in the list of `context` on screen (empty when another list, or none, is on screen). */
  selection<K extends ContextName>(context: K): readonly Contexts[K][];
  /** Who runs the command: platform staff or a merchant's user. */
  userKind: UserKind | null;
  /** The merchant a platform user has in view: `merchantId` in the URL (the merchant picker keeps it). */
  merchantInView: number | undefined;
}

export type UserKind = Output<typeof endpoints.auth.info>['kind'];

export interface ShellControls {
  openPalette(): void;
  openCheatSheet(): void;
  toggleSidebar(): void;
  toggleFullscreen(): void;
  setLanguage(language: 'en' | 'zh_CN'): void;
  setSize(size: 'medium' | 'small' | 'mini'): void;
  logout(): void;
}

export interface TableControls {
  move(delta: number): void;
  open(): void;
  toggleSelect(): void;
  /** Checks every row of the page, or clears them all when they all are. */
  toggleSelectPage(): void;
  focusFilter(): void;
}

/** Fields shared by screens and actions. */
interface CommandBase {
  /** Dotted id; the title is the message `commands.<id>.title`, search aliases `commands.<id>.keywords`. */
  id: string;
  /** The endpoints the command needs: shown when the list is empty or the user holds at least one. */
  needs?: readonly Endpoint[];
  /** `g a` (a sequence), `?`, `mod+k`, or a single key for a row action; a list gives alternatives. */
  shortcut?: string | readonly string[];
  icon?: IconName;
}

export type ScreenLoader = () => Promise<{ default: ComponentType }>;

/** A screen: a route with a lazily loaded component. */
export interface ScreenCommand extends CommandBase {
  kind: 'screen';
  /** wouter pattern. */
  route: string;
  screen: ScreenLoader;
  /** `public` screens need no sign-in and never appear in menus or the palette. */
  access?: 'public' | 'user';
  /** Sidebar group; absent for a top-level entry. */
  group?: MenuGroup;
  /** Kept out of the sidebar (still reachable from the palette and links). */
  hidden?: boolean;
}

/** An action: something a user runs, globally or on a row of a list of `context`. */
export interface ActionCommand<K extends ContextName | undefined = ContextName | undefined>
  extends CommandBase {
  kind: 'action';
  context?: K;
  /** `table` actions only fire while a list is focused (j/k, Enter, x, /). */
  scope?: 'table';
  /** State predicate on the target; never a permission check. */
  when?: K extends ContextName ? (target: Contexts[K]) => boolean : never;
  /**
   * Acts on the rows checked in its list rather than on one: offered while at least two are checked
   * (then its key wins over the single-row action's), never in a record's drawer. `run` reads the rows
   * with `c.selection(context)`.
   */
  bulk?: K extends ContextName ? true : never;
  /** Asked before running: `danger` paints the button red. */
  confirm?: { danger?: boolean };
  /** Hidden from the palette (still in menus and the cheat sheet). */
  paletteHidden?: boolean;
  run: K extends ContextName
    ? (ctx: RunContext, target: Contexts[K]) => unknown
    : (ctx: RunContext) => unknown;
}

export type AnyAction = ActionCommand<ContextName> | ActionCommand<undefined>;
export type Command = ScreenCommand | AnyAction;

export function screen(def: Omit<ScreenCommand, 'kind'>): ScreenCommand {
  return { kind: 'screen', ...def };
}

export function action(def: Omit<ActionCommand<undefined>, 'kind' | 'context'>): ActionCommand<undefined> {
  return { kind: 'action', ...def };
}

export function rowAction<K extends ContextName>(
  context: K,
  def: Omit<ActionCommand<K>, 'kind' | 'context'>,
): ActionCommand<ContextName> {
  return { kind: 'action', context, ...def } as unknown as ActionCommand<ContextName>;
}

export const titleKey = (id: string) => `commands.${id}.title`;
export const keywordsKey = (id: string) => `commands.${id}.keywords`;
export const confirmKey = (id: string) => `commands.${id}.confirm`;
