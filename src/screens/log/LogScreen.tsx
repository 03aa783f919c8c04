import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatTime, relativeTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';

type LogRow = Contexts['log'];

const outcomeTone = { ok: 'ok', failed: 'bad', denied: 'warn' } as const;

export const logColumns: Column<LogRow>[] = [
  {
    id: 'at',
    header: 'screens.log.at',
    value: (r) => r.at,
    cell: (r) => <time title={relativeTime(r.at, t)}>{formatTime(r.at)}</time>,
    width: '170px',
    sortable: true,
  },
  {
    id: 'username',
    header: 'screens.log.user',
    value: (r) => r.username,
    width: 'minmax(100px, 0.8fr)',
    sortable: true,
  },
  {
    id: 'action',
    header: 'screens.log.action',
    value: (r) => r.action,
    width: 'minmax(150px, 1.2fr)',
    sortable: true,
  },
  { id: 'target', header: 'screens.log.target', value: (r) => r.target, width: 'minmax(100px, 1fr)' },
  {
    id: 'outcome',
    header: 'screens.log.outcome',
    value: (r) => r.outcome,
    cell: (r) => <Badge tone={outcomeTone[r.outcome]}>{t(`screens.log.outcomes.${r.outcome}`)}</Badge>,
    width: '104px',
    sortable: true,
  },
  { id: 'ip', header: 'screens.log.ip', value: (r) => r.ip, width: '120px' },
  { id: 'errno', header: 'screens.log.errno', value: (r) => r.errno, width: '70px', hiddenByDefault: true },
  {
    id: 'requestId',
    header: 'screens.log.requestId',
    value: (r) => r.requestId,
    width: '150px',
    hiddenByDefault: true,
  },
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
    <Page title={t('commands.log.list.title')}>
      <DataTable
        id="log"
        label={t('commands.log.list.title')}
        endpoint={endpoints.log.list}
        context="log"
        columns={logColumns}
        filters={filters}
        toInput={toInput}
        paging="cursor"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => `${r.action} · ${formatTime(r.at)}`}
        detail={(r) =>
          r.detail === null || r.detail === undefined ? null : (
            <section className="detail-extra">
              <h3>{t('screens.log.detail')}</h3>
              <pre className="code-block">{JSON.stringify(r.detail, null, 2)}</pre>
            </section>
          )
        }
      />
    </Page>
  );
}
