import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { actionWords } from '../../lib/actionWords.ts';
import { formatTime, relativeTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf, hidden } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';

type LogRow = Contexts['log'];

const outcomeTone = { ok: 'ok', failed: 'bad', denied: 'warn' } as const;

const c = columnsOf<LogRow>('screens.log');

export const logColumns: Column<LogRow>[] = [
  c.time('at', '170px', { cell: (r) => <time title={relativeTime(r.at, t)}>{formatTime(r.at)}</time> }),
  c.text('username', 'minmax(100px, 0.8fr)', { header: 'screens.log.user' }),
  c.text('action', 'minmax(180px, 1.4fr)', {
    cell: (r) => <span title={r.action}>{actionWords(r.action)}</span>,
  }),
  c.text('target', 'minmax(100px, 1fr)', { sortable: false }),
  c.badge('outcome', (r) => outcomeTone[r.outcome], 'outcomes', '104px'),
  c.text('ip', '120px', { sortable: false }),
  c.text('errno', '70px', hidden),
  c.text('requestId', '150px', hidden),
];

function dayBound(value: string | undefined, end: boolean): string | undefined {
  if (!value) return undefined;
  const d = new Date(`${value}T${end ? '23:59:59.999' : '00:00:00'}`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

const toInput = (f: Record<string, string>) => ({
  username: f.username,
  action: f.action,
  outcome: f.outcome,
  from: dayBound(f.from, false),
  to: dayBound(f.to, true),
});

export default function LogScreen() {
  const t = useT();
  const filters: Filter[] = [
    { id: 'username', label: t('screens.log.user'), kind: 'text' },
    { id: 'action', label: t('screens.log.action'), kind: 'text' },
    {
      id: 'outcome',
      label: t('screens.log.outcome'),
      kind: 'select',
      options: (['ok', 'failed', 'denied'] as const).map((o) => ({
        value: o,
        label: t(`screens.log.outcomes.${o}`),
      })),
    },
    { id: 'from', label: t('screens.log.from'), kind: 'date' },
    { id: 'to', label: t('screens.log.to'), kind: 'date' },
  ];
  return (
    <ListScreen
      id="log"
      endpoint={endpoints.log.list}
      context="log"
      columns={logColumns}
      filters={filters}
      toInput={toInput}
      paging="cursor"
      detailTitle={(r) => `${actionWords(r.action)} · ${formatTime(r.at)}`}
      detail={(r) =>
        r.detail === null || r.detail === undefined ? null : (
          <section className="detail-extra">
            <h3>{t('screens.log.detail')}</h3>
            <pre className="code-block">{JSON.stringify(r.detail, null, 2)}</pre>
          </section>
        )
      }
    />
  );
}
