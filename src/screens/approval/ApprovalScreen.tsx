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
import { type Column, DataTable, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { amountColumn, merchantColumn } from '../columns.tsx';
import { Page } from '../Page.tsx';
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

const columns: Column<Request>[] = [
  {
    id: 'requestedAt',
    header: 'screens.approval.requestedAt',
    value: (r) => r.requestedAt,
    cell: (r) => <Age value={r.requestedAt} />,
    width: 'minmax(110px, 0.7fr)',
    sortable: true,
  },
  {
    id: 'action',
    header: 'screens.approval.action',
    value: (r) => t(`screens.approval.actions.${r.action}`),
    width: 'minmax(160px, 1fr)',
    sortable: true,
  },
  {
    id: 'object',
    header: 'screens.approval.object',
    value: objectName,
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
  },
  ...merchantColumn<Request>('screens.approval.merchant'),
  amountColumn<Request>('screens.approval.amount'),
  {
    id: 'requestedBy',
    header: 'screens.approval.requestedBy',
    value: (r) => r.requestedBy,
    width: 'minmax(100px, 0.8fr)',
    sortable: true,
  },
  {
    // Besides the requester: the importers of the statement it pays from.
    id: 'barred',
    header: 'screens.approval.barred',
    value: (r) => r.barred.join(', '),
    width: 'minmax(100px, 0.8fr)',
    hiddenByDefault: true,
  },
  {
    id: 'reason',
    header: 'screens.approval.reason',
    value: (r) => r.reason,
    width: 'minmax(140px, 1.3fr)',
  },
  {
    id: 'summary',
    header: 'screens.approval.summary',
    value: summaryText,
    width: 'minmax(140px, 1.2fr)',
  },
  {
    id: 'status',
    header: 'screens.approval.status',
    value: (r) => r.status,
    cell: (r) => <Badge tone={tone[r.status]}>{stateLabel(t, approval, r.status)}</Badge>,
    width: '130px',
  },
  {
    id: 'decidedBy',
    header: 'screens.approval.decidedBy',
    value: (r) => r.decidedBy ?? '',
    width: 'minmax(100px, 0.8fr)',
    hiddenByDefault: true,
  },
  {
    id: 'decidedAt',
    header: 'screens.approval.decidedAt',
    value: (r) => r.decidedAt ?? '',
    cell: (r) => (r.decidedAt ? <time dateTime={r.decidedAt}>{formatTime(r.decidedAt)}</time> : null),
    width: '160px',
    hiddenByDefault: true,
  },
  {
    id: 'decisionNote',
    header: 'screens.approval.decisionNote',
    value: (r) => r.decisionNote ?? '',
    width: 'minmax(120px, 1fr)',
    hiddenByDefault: true,
  },
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
  const title = tr('commands.approval.list.title');
  return (
    <Page title={title}>
      <p className="muted">{tr('screens.approval.intro')}</p>
      <DataTable
        id="approvals"
        label={title}
        endpoint={endpoints.approval.list}
        context="approval"
        columns={columns}
        filters={filters}
        toInput={toInput}
        paging="cursor"
        live
        rowKey={(r) => String(r.id)}
        detailTitle={(r) =>
          tr('screens.approval.detailTitle', {
            action: tr(`screens.approval.actions.${r.action}`),
            object: objectName(r),
          })
        }
      />
    </Page>
  );
}
