import { useCallback, useMemo } from 'react';
import { Link } from 'wouter';
import { objectRoute } from '../../../commands/approval.ts';
import { approvalActions } from '../../../contract/endpoints/approval.ts';
import { endpoints } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { approval } from '../../../contract/machines.ts';
import { formatTime, relativeTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { type Column, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { amountColumn, columnsOf, hidden, merchantColumn } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { objectName, type Request, summaryText } from './parts.ts';
import '../wallet/wallet.css';

const tone: Record<Request['status'], Tone> = {
  pending: 'warn',
  approved: 'ok',
  rejected: 'bad',
  cancelled: 'muted',
};

/** How long ago it was asked; the time to the second is in the tooltip. */
function Age({ value }: { value: string }) {
  return (
    <time dateTime={value} title={formatTime(value)}>
      {relativeTime(value, t)}
    </time>
  );
}

const c = columnsOf<Request>('screens.approval');

const columns: Column<Request>[] = [
  c.time('requestedAt', 'minmax(110px, 0.7fr)', { cell: (r) => <Age value={r.requestedAt} /> }),
  c.of('action', (r) => t(`screens.approval.actions.${r.action}`), { width: 'minmax(160px, 1fr)' }),
  c.of('object', objectName, {
    cell: (r) => {
      const route = objectRoute(r);
      return route ? (
        <Link href={route} className="link mono">
          {objectName(r)}
        </Link>
      ) : (
        <span className="mono">{objectName(r)}</span>
      );
    },
    width: 'minmax(190px, 1.2fr)',
    sortable: false,
  }),
  ...merchantColumn<Request>('screens.approval.merchant'),
  amountColumn<Request>('screens.approval.amount'),
  c.text('requestedBy', 'minmax(100px, 0.8fr)'),
  // Besides the requester: the importers of the statement it pays from.
  c.of('barred', (r) => r.barred.join(', '), { width: 'minmax(100px, 0.8fr)', ...hidden }),
  c.text('reason', 'minmax(140px, 1.3fr)', { sortable: false }),
  c.of('summary', summaryText, { width: 'minmax(140px, 1.2fr)', sortable: false }),
  c.text('status', '130px', {
    cell: (r) => <Badge tone={tone[r.status]}>{stateLabel(t, approval, r.status)}</Badge>,
    sortable: false,
  }),
  c.text('decidedBy', 'minmax(100px, 0.8fr)', hidden),
  c.time('decidedAt', '160px', {
    cell: (r) => (r.decidedAt ? <time dateTime={r.decidedAt}>{formatTime(r.decidedAt)}</time> : null),
    ...hidden,
  }),
  c.text('decisionNote', 'minmax(120px, 1fr)', hidden),
];

/**
 * Maker–checker requests: actions on money above the threshold that a platform user asked for and a
 * second one decides. Pending ones oldest first (the queue), who asked and when, the object (its link
 * opens it), the amount; approve (a) or reject (r) the focused row or in its drawer. Decided requests
 * are a status filter away.
 */
export default function ApprovalScreen() {
  const tr = useT();
  const filters: Filter[] = useMemo(
    () => [
      statusFilter(tr, approval, {
        label: tr('screens.approval.status'),
        // Nothing chosen is the queue itself: the pending requests.
        placeholder: stateLabel(tr, approval, approval.initial),
        states: approval.states.filter((s) => s !== approval.initial),
      }),
      {
        id: 'action',
        label: tr('screens.approval.action'),
        kind: 'select',
        options: approvalActions.map((a) => ({ value: a, label: tr(`screens.approval.actions.${a}`) })),
      },
    ],
    [tr],
  );
  const toInput = useCallback((f: Record<string, string>) => ({ status: f.status, action: f.action }), []);
  return (
    <ListScreen
      id="approvals"
      endpoint={endpoints.approval.list}
      context="approval"
      hint="screens.approval.intro"
      columns={columns}
      filters={filters}
      toInput={toInput}
      paging="cursor"
      live
      detailTitle={(r) =>
        tr('screens.approval.detailTitle', {
          action: tr(`screens.approval.actions.${r.action}`),
          object: objectName(r),
        })
      }
    />
  );
}
