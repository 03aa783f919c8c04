import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import type { Contexts } from '../../../commands/index.ts';
import { orderPath } from '../../../commands/statement.ts';
import { allows, endpoints } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { statementLine } from '../../../contract/machines.ts';
import { type ExceptionKind, exceptionKinds } from '../../../contract/statementSource.ts';
import { api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { $grants } from '../../lib/session.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { columnsOf, hidden } from '../columns.tsx';
import { Money } from '../wallet/money.tsx';

export type Line = Contexts['statementLineRow'];
export type Import = Contexts['statementImportRow'];
/** Why a line waits in the queue: ready to post, proposed for one click, or the exception's kind. */
export type QueueKind = typeof ready | typeof proposed | ExceptionKind;
const { ready, proposed } = statementLine.state;
export const queueKinds: readonly QueueKind[] = [ready, proposed, ...exceptionKinds];
/** The queue kinds that are states of their own, a candidate to post (the rest are exceptions). */
const postableStates: readonly string[] = statementLine.sets.postable;

const tones: Record<Line['status'], Tone> = {
  new: 'info',
  ready: 'warn',
  proposed: 'warn',
  exception: 'bad',
  matched: 'ok',
  dismissed: 'muted',
};

export function LineStatus({ status }: { status: Line['status'] }) {
  return <Badge tone={tones[status]}>{stateLabel(t, statementLine, status)}</Badge>;
}

export const kindOf = (l: Line): QueueKind | null =>
  postableStates.includes(l.status) ? (l.status as QueueKind) : l.exceptionKind;
export const kindLabel = (kind: QueueKind) => t(`statement.queue.kinds.${kind}`);

/** An amount as the API answers it, grouped; a debit shown with its minus. */
export function Amount({ line }: { line: Pick<Line, 'amount' | 'direction'> }) {
  return (
    <span className={`money statement-${line.direction}`}>
      {line.direction === 'debit' ? '−' : ''}
      {thousands(line.amount)}
    </span>
  );
}

/** A pay-in by its number, opening its drawer in the pay-in list. */
function OrderLink({ orderNo }: { orderNo: string }) {
  return (
    <Link href={orderPath(orderNo)} className="mono">
      {orderNo}
    </Link>
  );
}

/** The order a line paid, or the one it points at (proposed, or its UTR with another amount). */
function OrderCell({ line }: { line: Line }) {
  if (line.payinNo) return <OrderLink orderNo={line.payinNo} />;
  if (line.candidateNo)
    return (
      <span className="statement-candidate" title={t('statement.screen.candidateHint')}>
        <OrderLink orderNo={line.candidateNo} />
        {line.candidateAmount !== null && line.candidateAmount !== line.amount && (
          <span className="muted"> · {thousands(line.candidateAmount)}</span>
        )}
      </span>
    );
  if (line.slipNo) return <span className="mono">{line.slipNo}</span>;
  if (line.candidateSlipNo)
    return (
      <span className="statement-candidate mono" title={t('statement.screen.candidateHint')}>
        {line.candidateSlipNo}
      </span>
    );
  return null;
}

const c = columnsOf<Line>('statement.screen.columns');

/** The columns a statement line shows in the flow and in the queue. */
export const lineColumns = {
  day: c.text('day', '104px'),
  account: c.of('account', (r) => r.accountLabel, { width: 'minmax(140px, 1fr)' }),
  direction: c.text('direction', '96px', {
    cell: (r) => t(`statement.screen.directions.${r.direction}`),
    sortable: false,
  }),
  amount: c.of('amount', (r) => Number(r.amount) * (r.direction === 'debit' ? -1 : 1), {
    cell: (r) => <Amount line={r} />,
    width: '120px',
  }),
  balance: c.of('balance', (r) => (r.balance === null ? null : Number(r.balance)), {
    cell: (r) => (r.balance === null ? '—' : <Money value={r.balance} />),
    width: '124px',
    sortable: false,
  }),
  utr: c.text('utr', '130px', {
    cell: (r) => (r.utr ? <span className="mono">{r.utr}</span> : '—'),
    sortable: false,
  }),
  status: c.text('status', '100px', { cell: (r) => <LineStatus status={r.status} /> }),
  kind: c.of('kind', (r) => kindOf(r), {
    cell: (r) => {
      const kind = kindOf(r);
      if (!kind) return '—';
      const badge = <Badge tone={postableStates.includes(kind) ? 'warn' : 'bad'}>{kindLabel(kind)}</Badge>;
      // A line waiting in a second person's approval says so.
      return r.approvalId === null ? (
        badge
      ) : (
        <span title={t('statement.screen.awaiting', { id: r.approvalId })}>
          {badge} <Badge tone="info">#{r.approvalId}</Badge>
        </span>
      );
    },
    width: '150px',
  }),
  order: c.of('order', (r) => r.payinNo ?? r.candidateNo ?? r.slipNo, {
    cell: (r) => <OrderCell line={r} />,
    // An order's number and, for a candidate of another amount, that amount beside it.
    width: 'minmax(264px, 1.2fr)',
    sortable: false,
  }),
  narration: c.text('narration', 'minmax(200px, 2fr)', {
    cell: (r) => (
      <span className="statement-narration" title={r.narration}>
        {r.narration}
      </span>
    ),
    sortable: false,
  }),
  reference: c.text('reference', '150px', hidden),
  reason: c.text('reason', 'minmax(140px, 1fr)', hidden),
};

/** The receiving accounts (the first 100), read only by who may read them. */
/** What the lists of statement lines (the lines, the exception queue) share: the row and live pages. */
export const lineList = {
  context: 'statementLineRow',
  paging: 'page',
  live: true,
} as const;

export function useReceivingAccounts() {
  const grants = useStore($grants);
  return useQuery({
    queryKey: ['receivingAccount', 'all'],
    queryFn: ({ signal }) => api(endpoints.receivingAccount.list, { pageSize: 100 }, { signal }),
    enabled: allows(grants, [endpoints.receivingAccount.list]),
    staleTime: 60_000,
  });
}

/** The receiving accounts as a filter's choices. */
export function useAccountOptions() {
  const accounts = useReceivingAccounts();
  return (accounts.data?.list ?? []).map((a) => ({
    value: String(a.id),
    label: `${a.bankName} · ${a.accountNumber}`,
  }));
}
