import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { tnRunOutcome } from '../../../contract/endpoints/tn.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { formatTime, thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';
import { Money } from '../wallet/money.tsx';
import '../wallet/wallet.css';

type Run = Contexts['tnRun'];

const outcomeTone: Record<Run['outcome'], Tone> = {
  running: 'info',
  succeeded: 'ok',
  partial: 'warn',
  failed: 'bad',
};

function OutcomeBadge({ outcome }: { outcome: Run['outcome'] }) {
  return <Badge tone={outcomeTone[outcome]}>{t(`screens.tn.outcomes.${outcome}`)}</Badge>;
}

function Time({ value }: { value: string | null }) {
  if (!value) return null;
  return (
    <time dateTime={value} title={formatTime(value)}>
      {formatTime(value, false)}
    </time>
  );
}

const columns: Column<Run>[] = [
  { id: 'id', header: 'screens.tn.runId', value: (r) => r.id, width: '64px', sortable: true },
  { id: 'day', header: 'screens.tn.day', value: (r) => r.day, width: '110px', sortable: true },
  {
    id: 'startedAt',
    header: 'screens.tn.startedAt',
    value: (r) => r.startedAt,
    cell: (r) => <Time value={r.startedAt} />,
    width: '150px',
    sortable: true,
  },
  {
    id: 'finishedAt',
    header: 'screens.tn.finishedAt',
    value: (r) => r.finishedAt ?? '',
    cell: (r) => <Time value={r.finishedAt} />,
    width: '150px',
    hiddenByDefault: true,
  },
  {
    id: 'startedBy',
    header: 'screens.tn.startedBy',
    value: (r) => r.startedBy ?? '',
    cell: (r) => r.startedBy ?? <span className="muted">{t('screens.tn.dailyJob')}</span>,
    width: 'minmax(100px, 0.8fr)',
    sortable: true,
  },
  {
    id: 'merchants',
    header: 'screens.tn.merchants',
    value: (r) => r.merchants,
    width: '90px',
    sortable: true,
  },
  {
    id: 'lines',
    header: 'screens.tn.lines',
    value: (r) => r.lines,
    cell: (r) => thousands(r.lines),
    width: '80px',
    sortable: true,
  },
  {
    id: 'amountReleased',
    header: 'screens.tn.amountReleased',
    value: (r) => Number(r.amountReleased),
    cell: (r) => <Money value={r.amountReleased} />,
    width: 'minmax(120px, 1fr)',
    sortable: true,
  },
  {
    id: 'outcome',
    header: 'screens.tn.outcome',
    value: (r) => r.outcome,
    cell: (r) => <OutcomeBadge outcome={r.outcome} />,
    width: '110px',
    sortable: true,
  },
];

/** A run's outcome per merchant, in its drawer: who was released, who failed and why. */
function MerchantOutcomes({ id }: { id: number }) {
  const t = useT();
  const info = useQuery({
    queryKey: ['tnRun', id],
    queryFn: ({ signal }) => api(endpoints.settlementtnLog.info, { id }, { signal }),
  });
  const rows = info.data?.merchantOutcomes;
  return (
    <section className="detail-extra">
      <h3>{t('screens.tn.perMerchant')}</h3>
      {!rows ? (
        <p className="muted">{t('app.loading')}</p>
      ) : rows.length === 0 ? (
        <p className="muted">{t('screens.tn.nothingDue')}</p>
      ) : (
        <OutcomeTable rows={rows} />
      )}
    </section>
  );
}

function OutcomeTable({ rows }: { rows: Output<typeof endpoints.settlementtnLog.info>['merchantOutcomes'] }) {
  const t = useT();
  return (
    <table className="mini-table">
      <thead>
        <tr>
          <th>{t('screens.tn.merchant')}</th>
          <th>{t('screens.tn.lines')}</th>
          <th>{t('screens.tn.amount')}</th>
          <th>{t('screens.tn.outcome')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((m) => (
          <tr key={`${m.merchantId}:${m.currency}`}>
            <td>{m.merchantCode}</td>
            <td>{thousands(m.lines)}</td>
            <td>
              <Money value={m.amount} /> <span className="muted">{m.currency}</span>
            </td>
            <td>
              <Badge tone={m.outcome === 'released' ? 'ok' : 'bad'}>
                {t(`screens.tn.merchantOutcomes.${m.outcome}`)}
              </Badge>
              {m.error && <div className="muted">{m.error}</div>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * T+N settlement runs: the daily job's and those started by hand, newest first, each with what it
 * released; a run's drawer says how each merchant fared. "Run settlement now" (Shift-R) releases what is due
 * by a day up to today.
 */
export default function TnRunsScreen() {
  const t = useT();
  const filters: Filter[] = useMemo(
    () => [
      {
        id: 'outcome',
        label: t('screens.tn.outcome'),
        kind: 'select',
        options: tnRunOutcome.options.map((o) => ({ value: o, label: t(`screens.tn.outcomes.${o}`) })),
      },
    ],
    [t],
  );
  return (
    <Page
      title={t('commands.settlementtnLog.list.title')}
      actions={<CommandButton id="settlementtnLog.run" primary />}
    >
      <p className="muted">{t('screens.tn.runsHint')}</p>
      <DataTable
        id="tnRuns"
        label={t('commands.settlementtnLog.list.title')}
        endpoint={endpoints.settlementtnLog.list}
        context="tnRun"
        columns={columns}
        filters={filters}
        paging="cursor"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => t('screens.tn.runTitle', { id: r.id, day: r.day })}
        detail={(r) => <MerchantOutcomes id={r.id} />}
      />
    </Page>
  );
}
