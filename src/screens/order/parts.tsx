import { useMemo } from 'react';
import { useSearchParams } from 'wouter';
import type { Contexts } from '../../../commands/index.ts';
import { type AnyMachine, stateLabel } from '../../../contract/machine.ts';
import { payin, payout } from '../../../contract/machines.ts';
import { formatTime, relativeTime, thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';

export type Payin = Contexts['payin'];
export type Payout = Contexts['payout'];
export type OrderKind = 'payin' | 'payout';

/** The message area of a kind of order: `screens.order.*` for pay-ins, `screens.payout.*` for payouts. */
export const areaOf = (kind: OrderKind) => (kind === 'payin' ? 'screens.order' : 'screens.payout');

/** The state machine of each kind of order (contract/machines.ts). */
export const orderMachines = { payin, payout } as const;

const statusTone: Record<Payin['status'] | Payout['status'], Tone> = {
  creating: 'info',
  pending: 'info',
  paid: 'ok',
  failed: 'bad',
  unpaid: 'muted',
  creation_failed: 'bad',
  queued: 'info',
  submitting: 'warn',
  processing: 'warn',
  needs_review: 'bad',
  success: 'ok',
};

export function StatusBadge({
  kind,
  status,
}: {
  kind: OrderKind;
  status: Payin['status'] | Payout['status'];
}) {
  return <Badge tone={statusTone[status]}>{stateLabel(t, orderMachines[kind], status)}</Badge>;
}

/** States with a merchant callback to push; before them "push status" means nothing. */
export function callbackDue(kind: OrderKind, status: Payin['status'] | Payout['status']): boolean {
  const machine: AnyMachine = orderMachines[kind];
  return machine.can('push', status);
}

export function PushBadge({
  kind,
  status,
  pushStatus,
}: {
  kind: OrderKind;
  status: Payin['status'] | Payout['status'];
  pushStatus: 'pushed' | 'unpushed';
}) {
  if (!callbackDue(kind, status)) return <span className="muted">—</span>;
  return (
    <Badge tone={pushStatus === 'pushed' ? 'ok' : 'warn'}>
      {t(`screens.order.pushStatuses.${pushStatus}`)}
    </Badge>
  );
}

/** An amount as people read it: thousands separators, two decimals, never a float. */
export const money = (value: string | null | undefined) => (value ? thousands(value) : '');

export function TimeCell({ value }: { value: string | null }) {
  if (!value) return null;
  return (
    <time className="dt-time" title={relativeTime(value, t)}>
      {formatTime(value)}
    </time>
  );
}

/**
 * The filters of an order list as the endpoints take them, read from the URL: what the table, the
 * totals and the exports all ask with, so the three always describe the same set.
 */
export function useOrderFilters(period: { from: string; to: string } | null) {
  const [params] = useSearchParams();
  const text = params.toString();
  return useMemo(() => {
    if (!period) return null;
    const p = new URLSearchParams(text);
    const many = (key: string) => {
      const values = p.getAll(key).filter(Boolean);
      return values.length ? values : undefined;
    };
    const one = (key: string) => p.get(key) || undefined;
    return {
      ...period,
      q: one('q'),
      nos: many('nos'),
      status: many('status'),
      pushStatus: one('pushStatus'),
      merchantId: one('merchantId'),
      channelId: one('channelId'),
      receivingAccountId: one('receivingAccountId'),
    };
  }, [period, text]);
}
