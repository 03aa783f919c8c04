import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { allows, endpoints, type Output } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { formatTime, thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { ratePercent, rateTone } from '../dashboard/rates.ts';
import { limitsLabel, percent } from '../merchant/terms.ts';
import { Page } from '../Page.tsx';
import { simulatorSettingsOf } from './settings.ts';
import './channel.css';

type Channel = Contexts['channel'];
type Health = Output<typeof endpoints.dashboard.summary>['channels'][number];

const columns: Column<Channel>[] = [
  {
    id: 'code',
    header: 'screens.channel.code',
    value: (r) => r.code,
    cell: (r) => <code>{r.code}</code>,
    width: '110px',
    sortable: true,
  },
  {
    id: 'name',
    header: 'screens.channel.name',
    value: (r) => r.name,
    width: 'minmax(130px, 1.2fr)',
    sortable: true,
  },
  {
    id: 'adapter',
    header: 'screens.channel.adapter',
    value: (r) => r.adapter,
    cell: (r) => t(`screens.channel.adapters.${r.adapter}`),
    width: '100px',
    sortable: true,
    hiddenByDefault: true,
  },
  {
    id: 'status',
    header: 'screens.channel.status',
    value: (r) => r.status,
    cell: (r) => (
      <Badge tone={r.status === 'active' ? 'ok' : 'muted'}>{t(`screens.channel.statuses.${r.status}`)}</Badge>
    ),
    width: '90px',
    sortable: true,
  },
  {
    id: 'directions',
    header: 'screens.channel.directions',
    value: (r) => `${r.supportsPayin ? 1 : 0}${r.supportsPayout ? 1 : 0}`,
    cell: (r) => (
      <span className="badges">
        {r.supportsPayin && <Badge tone="info">{t('screens.channel.payin')}</Badge>}
        {r.supportsPayout && <Badge tone="info">{t('screens.channel.payout')}</Badge>}
      </span>
    ),
    width: '140px',
  },
  {
    id: 'payinCostRate',
    header: 'screens.channel.payinCostRate',
    value: (r) => Number(r.payinCostRate),
    cell: (r) => percent(r.payinCostRate),
    width: '120px',
    sortable: true,
  },
  {
    id: 'payoutCost',
    header: 'screens.channel.payoutCost',
    value: (r) => Number(r.payoutCostRate),
    cell: (r) => `${percent(r.payoutCostRate)} + ${thousands(r.payoutCostFixed)}`,
    width: '130px',
    hiddenByDefault: true,
  },
  {
    id: 'limits',
    header: 'screens.channel.limits',
    value: (r) => Number(r.maxAmount),
    cell: (r) => limitsLabel(r.minAmount, r.maxAmount),
    width: 'minmax(150px, 1fr)',
    hiddenByDefault: true,
  },
  { id: 'weight', header: 'screens.channel.weight', value: (r) => r.weight, width: '70px', sortable: true },
  {
    id: 'credentials',
    header: 'screens.channel.credentials',
    value: (r) => r.hasCredentials,
    cell: (r) => (
      <Badge tone={r.hasCredentials ? 'ok' : 'muted'}>
        {t(r.hasCredentials ? 'screens.channel.credentialsStored' : 'screens.channel.credentialsNone')}
      </Badge>
    ),
    width: '110px',
    hiddenByDefault: true,
  },
  {
    id: 'mode',
    header: 'screens.channel.mode',
    value: (r) => (r.adapter === 'simulator' ? String(simulatorSettingsOf(r.settings).auto) : ''),
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
  },
  {
    id: 'createdAt',
    header: 'screens.channel.createdAt',
    value: (r) => r.createdAt,
    cell: (r) => formatTime(r.createdAt),
    width: '150px',
    sortable: true,
    hiddenByDefault: true,
  },
];

/** Health from the dashboard's figures: the pay-in success rate of the last 7 days. */
function healthColumn(health: Map<number, Health>): Column<Channel> {
  return {
    id: 'health',
    header: 'screens.channel.health',
    value: (r) => health.get(r.id)?.successRatePpm ?? -1,
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
    sortable: true,
  };
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
    <Page title={t('commands.channel.list.title')} actions={<CommandButton id="channel.create" primary />}>
      <DataTable
        id="channel"
        label={t('commands.channel.list.title')}
        endpoint={endpoints.channel.list}
        context="channel"
        columns={withHealth}
        filters={filters}
        paging="page"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => `${r.code} · ${r.name}`}
      />
    </Page>
  );
}
