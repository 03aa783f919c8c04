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
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { MerchantCell } from '../../ui/MerchantCell.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
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

const c = columnsOf<Run>('screens.tn');

const columns: Column<Run>[] = [
  c.text('id', '64px', { header: 'screens.tn.runId' }),
  c.text('day', '110px'),
  c.time('startedAt', '150px', { cell: (r) => <Time value={r.startedAt} /> }),
  c.time('finishedAt', '150px', {
    cell: (r) => <Time value={r.finishedAt} />,
    sortable: false,
    hiddenByDefault: true,
  }),
  c.text('startedBy', 'minmax(100px, 0.8fr)', {
    cell: (r) => r.startedBy ?? <span className="muted">{t('screens.tn.dailyJob')}</span>,
  }),
  c.text('merchants', '90px'),
  c.count('lines', '80px'),
  c.money('amountReleased', 'minmax(120px, 1fr)'),
  c.text('outcome', '110px', { cell: (r) => <OutcomeBadge outcome={r.outcome} /> }),
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
            <td>
              <MerchantCell code={m.merchantCode} />
            </td>
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
    <ListScreen
      id="tnRuns"
      endpoint={endpoints.settlementtnLog.list}
      context="tnRun"
      actions={<CommandButton id="settlementtnLog.run" primary />}
      hint="screens.tn.runsHint"
      columns={columns}
      filters={filters}
      paging="cursor"
      detailTitle={(r) => t('screens.tn.runTitle', { id: r.id, day: r.day })}
      detail={(r) => <MerchantOutcomes id={r.id} />}
    />
  );
}
