import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { allows, endpoints, type Output } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf, hidden } from '../columns.tsx';
import { ratePercent, rateTone } from '../dashboard/rates.ts';
import { ListScreen } from '../ListScreen.tsx';
import { limitsLabel, percent } from '../merchant/terms.ts';
import { simulatorSettingsOf } from './settings.ts';
import './channel.css';

type Channel = Contexts['channel'];
type Health = Output<typeof endpoints.dashboard.summary>['channels'][number];

const c = columnsOf<Channel>('screens.channel');

const columns: Column<Channel>[] = [
  c.code('code', '110px'),
  c.text('name', 'minmax(130px, 1.2fr)'),
  c.text('adapter', '100px', {
    cell: (r) => t(`screens.channel.adapters.${r.adapter}`),
    hiddenByDefault: true,
  }),
  c.badge('status', (r) => (r.status === 'active' ? 'ok' : 'muted'), 'statuses', '90px'),
  c.of('directions', (r) => `${r.supportsPayin ? 1 : 0}${r.supportsPayout ? 1 : 0}`, {
    cell: (r) => (
      <span className="badges">
        {r.supportsPayin && <Badge tone="info">{t('screens.channel.payin')}</Badge>}
        {r.supportsPayout && <Badge tone="info">{t('screens.channel.payout')}</Badge>}
      </span>
    ),
    width: '140px',
    sortable: false,
  }),
  c.rate('payinCostRate', '120px'),
  c.of('payoutCost', (r) => Number(r.payoutCostRate), {
    cell: (r) => `${percent(r.payoutCostRate)} + ${thousands(r.payoutCostFixed)}`,
    width: '130px',
    ...hidden,
  }),
  c.of('limits', (r) => Number(r.maxAmount), {
    cell: (r) => limitsLabel(r.minAmount, r.maxAmount),
    width: 'minmax(150px, 1fr)',
    ...hidden,
  }),
  c.text('weight', '70px'),
  c.of('credentials', (r) => r.hasCredentials, {
    cell: (r) => (
      <Badge tone={r.hasCredentials ? 'ok' : 'muted'}>
        {t(r.hasCredentials ? 'screens.channel.credentialsStored' : 'screens.channel.credentialsNone')}
      </Badge>
    ),
    width: '110px',
    ...hidden,
  }),
  c.of('mode', (r) => (r.adapter === 'simulator' ? String(simulatorSettingsOf(r.settings).auto) : ''), {
    cell: (r) => {
      if (r.adapter !== 'simulator') return null;
      const s = simulatorSettingsOf(r.settings);
      return s.auto ? (
        <Badge tone="warn">{t('screens.channel.autoOn', { rate: s.successRate })}</Badge>
      ) : (
        <Badge tone="muted">{t('screens.channel.manual')}</Badge>
      );
    },
    width: 'minmax(120px, 0.8fr)',
    sortable: false,
  }),
  c.time('createdAt', '150px', { hiddenByDefault: true }),
];

/** Health from the dashboard's figures: the pay-in success rate of the last 7 days. */
function healthColumn(health: Map<number, Health>): Column<Channel> {
  return c.of('health', (r) => health.get(r.id)?.successRatePpm ?? -1, {
    cell: (r) => {
      const h = health.get(r.id);
      if (!h || h.successRatePpm === null)
        return <span className="muted">{t('screens.channel.noTraffic')}</span>;
      return (
        <span
          title={t('screens.channel.healthNote', {
            paid: h.payinSuccessCount,
            finished: h.payinFinishedCount,
          })}
        >
          <Badge tone={rateTone(h.successRatePpm)}>{ratePercent(h.successRatePpm)}</Badge>
        </span>
      );
    },
    width: '120px',
  });
}

/** Channels: the providers behind their adapters, with cost, limits, routing weight, status and health. */
export default function ChannelScreen() {
  const t = useT();
  const grants = useStore($grants);
  const summary = useQuery({
    queryKey: ['dashboard', 'summary'],
    queryFn: ({ signal }) => api(endpoints.dashboard.summary, {}, { signal }),
    enabled: allows(grants, [endpoints.dashboard.summary]),
    staleTime: 30_000,
  });
  const withHealth = useMemo(() => {
    if (!summary.data) return columns;
    const health = new Map(summary.data.channels.map((c) => [c.channelId, c]));
    const at = columns.findIndex((c) => c.id === 'status') + 1;
    return [...columns.slice(0, at), healthColumn(health), ...columns.slice(at)];
  }, [summary.data]);
  const filters: Filter[] = [{ id: 'q', label: t('screens.channel.search'), kind: 'text' }];
  return (
    <ListScreen
      id="channel"
      endpoint={endpoints.channel.list}
      context="channel"
      create
      columns={withHealth}
      filters={filters}
      paging="page"
      detailTitle={(r) => `${r.code} · ${r.name}`}
    />
  );
}
