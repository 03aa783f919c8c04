/**
 * How the console shows an order's fields, in the list's columns and in the drawer, for both kinds.
 * What a field's form in the row declaration (`payinRowFields`, `payoutRowFields`) says is not
 * repeated: a money field reads as an amount, a time as a time; a view says only what differs.
 */
import type { ReactNode } from 'react';
import { payinRowFields, payoutRowFields } from '../../../contract/endpoints/orders.ts';
import type { FieldForm } from '../../../contract/orderRow.ts';
import { formatTime } from '../../lib/format.ts';
import { hasKey, t } from '../../lib/i18n.ts';
import type { Column } from '../../ui/DataTable.tsx';
import type { DetailItem } from '../../ui/DetailDrawer.tsx';
import { MerchantCell } from '../../ui/MerchantCell.tsx';
import { columnsOf } from '../columns.tsx';
import {
  areaOf,
  money,
  type OrderKind,
  type Payin,
  type Payout,
  PushBadge,
  StatusBadge,
  TimeCell,
} from './parts.tsx';

/** What the views read of an order: the row of either kind, or its detail. */
type OrderLike = Pick<Payin | Payout, 'orderNo' | 'currency' | 'amount' | 'status' | 'pushStatus'> & {
  paidBy?: string | null;
  source?: Payout['source'];
  accountName?: string;
  accountNumber?: string;
  ifsc?: string;
};
type Value = string | number | null;

const fieldOf = (o: OrderLike, key: string) => ((o as Record<string, unknown>)[key] ?? null) as string | null;

/** How a value of each form reads: its sort value, its cell in the list and its line in the drawer. */
const byForm: Record<
  FieldForm,
  {
    value: (v: string | null) => Value;
    cell?: (v: string | null) => ReactNode;
    line: (v: string | null) => ReactNode;
  }
> = {
  money: {
    value: (v) => (v === null ? null : Number(v)),
    cell: (v) => <span className="num">{money(v)}</span>,
    line: (v) => money(v),
  },
  time: { value: (v) => v ?? '', cell: (v) => <TimeCell value={v} />, line: (v) => formatTime(v) },
  number: { value: (v) => v ?? '', line: (v) => v },
  text: { value: (v) => v ?? '', line: (v) => v },
  merchantCode: { value: (v) => v ?? '', line: (v) => v },
  channelCode: { value: (v) => v ?? '', line: (v) => v },
};

/** The forms of a kind's fields: the row declaration's, and those of the fields only its detail has. */
const formsOf: Record<OrderKind, Record<string, FieldForm>> = {
  payin: {
    ...Object.fromEntries(Object.entries(payinRowFields).map(([key, f]) => [key, f.form])),
    agentCommission: 'money',
  },
  payout: Object.fromEntries(Object.entries(payoutRowFields).map(([key, f]) => [key, f.form])),
};

interface View {
  /** The message key of its header and drawer label; `screens.order.<field>` unless said. */
  label?: string;
  /** Monospace in the drawer (numbers people copy). */
  mono?: boolean;
  /** A label for a value from a closed set: the list's value and the drawer's line. */
  text?: (o: OrderLike) => string;
  /** The list's value, for a column that is not one field. */
  value?: (o: OrderLike) => Value;
  cell?: (o: OrderLike) => ReactNode;
  line?: (o: OrderLike) => ReactNode;
}

function viewsOf(kind: OrderKind): Record<string, View> {
  const status = (o: OrderLike) => <StatusBadge kind={kind} status={o.status} />;
  const push = (o: OrderLike) => <PushBadge kind={kind} status={o.status} pushStatus={o.pushStatus} />;
  const paidBy = (o: OrderLike) => {
    const key = o.paidBy ? `screens.order.paidByKinds.${o.paidBy}` : '';
    return key && hasKey(key) ? t(key) : (o.paidBy ?? '');
  };
  return {
    orderNo: { mono: true, cell: (o) => <span className="mono">{o.orderNo}</span> },
    merchantOrderNo: { mono: true },
    // Its name beside it in the list (platform users); the drawer's line is the code alone.
    merchantCode: {
      label: 'screens.order.merchant',
      cell: (o) => <MerchantCell code={fieldOf(o, 'merchantCode')} />,
    },
    channelCode: { label: 'screens.order.channel' },
    channelOrderId: { mono: true },
    amount: { label: `${areaOf(kind)}.amount`, line: (o) => `${money(o.amount)} ${o.currency}` },
    status: { cell: status, line: status },
    pushStatus: { cell: push, line: push },
    utr: { mono: true },
    payerUtr: { mono: true },
    paidBy: { text: paidBy },
    notifyUrl: { mono: true },
    returnUrl: { mono: true },
    payUrl: { mono: true },
    // Name and account in one column, so a payout list fits 1280 px beside the menu.
    payee: {
      label: 'screens.payout.payee',
      value: (o) => `${o.accountName} ${o.accountNumber}`,
      cell: (o) => (
        <span title={`${o.accountName} · ${o.accountNumber} · ${o.ifsc}`}>
          {o.accountName} <span className="mono muted">{o.accountNumber}</span>
        </span>
      ),
    },
    accountName: { label: 'screens.payout.accountName' },
    accountNumber: { label: 'screens.payout.accountNumber', mono: true },
    ifsc: { label: 'screens.payout.ifsc', mono: true },
    source: { label: 'screens.payout.source', text: (o) => t(`screens.payout.sources.${o.source}`) },
    completedAt: { label: 'screens.payout.completedAt' },
  };
}

const views = { payin: viewsOf('payin'), payout: viewsOf('payout') };

/** A column of an order list: the field, its track, and whether it sorts or starts hidden. */
export type ColumnSpec = [field: string, width: string, options?: { sortable?: boolean; hidden?: boolean }];

/** The columns of an order list, in the order given. */
export function orderColumns<O extends OrderLike>(kind: OrderKind, specs: ColumnSpec[]): Column<O>[] {
  const c = columnsOf<O>('screens.order');
  return specs.map(([key, width, options = {}]) => {
    const view = views[kind][key] ?? {};
    const form = byForm[formsOf[kind][key] ?? 'text'];
    const read = (o: O) => fieldOf(o, key);
    const formCell = view.text || view.value ? undefined : form.cell;
    const cell = view.cell ?? (formCell && ((o: O) => formCell(read(o))));
    return c.of(key, (o) => (view.value ? view.value(o) : view.text ? view.text(o) : form.value(read(o))), {
      header: view.label ?? `screens.order.${key}`,
      ...(cell ? { cell } : {}),
      width,
      sortable: !!options.sortable,
      ...(options.hidden ? { hiddenByDefault: true } : {}),
    });
  });
}

/** The drawer's lines of an order: the fields given, in their order. */
export function orderLines(kind: OrderKind, o: OrderLike, keys: string[]): DetailItem[] {
  return keys.map((key) => {
    const view = views[kind][key] ?? {};
    const form = byForm[formsOf[kind][key] ?? 'text'];
    const value = view.line ? view.line(o) : view.text ? view.text(o) : form.line(fieldOf(o, key));
    return { label: t(view.label ?? `screens.order.${key}`), value, ...(view.mono ? { mono: true } : {}) };
  });
}
