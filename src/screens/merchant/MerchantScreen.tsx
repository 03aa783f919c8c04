import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import type { Contexts } from '../../../commands/index.ts';
import { allows, endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { formatTime, thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';
import { MerchantDetail } from './MerchantDetail.tsx';
import { cycleLabel, limitsLabel, percent } from './terms.ts';
import './merchant.css';

type Merchant = Contexts['merchant'];

export const statusTone = { active: 'ok', frozen: 'bad' } as const;

const columns: Column<Merchant>[] = [
  {
    id: 'code',
    header: 'screens.merchant.code',
    value: (r) => r.code,
    cell: (r) => <code>{r.code}</code>,
    width: '110px',
    sortable: true,
  },
  {
    id: 'name',
    header: 'screens.merchant.name',
    value: (r) => r.name,
    width: 'minmax(120px, 1.5fr)',
    sortable: true,
  },
  {
    id: 'status',
    header: 'screens.merchant.status',
    value: (r) => r.status,
    cell: (r) => <Badge tone={statusTone[r.status]}>{t(`screens.merchant.statuses.${r.status}`)}</Badge>,
    width: '80px',
    sortable: true,
  },
  {
    id: 'agent',
    header: 'screens.merchant.agent',
    value: (r) => r.agentName ?? '',
    cell: (r) => r.agentName ?? <span className="muted">{t('screens.merchant.noAgent')}</span>,
    width: 'minmax(100px, 1fr)',
    sortable: true,
  },
  {
    id: 'collectionRate',
    header: 'screens.merchant.collectionRate',
    value: (r) => Number(r.collectionRate),
    cell: (r) => percent(r.collectionRate),
    width: '100px',
    sortable: true,
  },
  {
    id: 'platformFee',
    header: 'screens.merchant.platformFee',
    value: (r) => Number(r.platformFee),
    cell: (r) => thousands(r.platformFee),
    width: '100px',
    hiddenByDefault: true,
  },
  {
    id: 'payoutRate',
    header: 'screens.merchant.payoutRate',
    value: (r) => Number(r.payoutRate),
    cell: (r) => percent(r.payoutRate),
    width: '90px',
    sortable: true,
  },
  {
    id: 'payoutFee',
    header: 'screens.merchant.payoutFee',
    value: (r) => Number(r.payoutFee),
    cell: (r) => thousands(r.payoutFee),
    width: '100px',
    hiddenByDefault: true,
  },
  {
    id: 'surcharge',
    header: 'screens.merchant.surcharge',
    value: (r) => Number(r.surcharge),
    cell: (r) => percent(r.surcharge),
    width: '90px',
    hiddenByDefault: true,
  },
  {
    id: 'exchangeRate',
    header: 'screens.merchant.exchangeRate',
    value: (r) => Number(r.exchangeRate),
    width: '100px',
    hiddenByDefault: true,
  },
  {
    id: 'limits',
    header: 'screens.merchant.limits',
    value: (r) => Number(r.maxAmount),
    cell: (r) => limitsLabel(r.minAmount, r.maxAmount),
    width: 'minmax(160px, 1fr)',
  },
  {
    id: 'settlementCycle',
    header: 'screens.merchant.settlementCycle',
    value: (r) => r.settlementCycle,
    cell: (r) => cycleLabel(r.settlementCycle),
    width: '80px',
    sortable: true,
  },
  {
    id: 'channels',
    header: 'screens.merchant.channels',
    value: (r) => r.channels.map((c) => c.code).join(', '),
    width: 'minmax(110px, 1fr)',
    hiddenByDefault: true,
  },
  {
    id: 'callbackUrl',
    header: 'screens.merchant.callbackUrl',
    value: (r) => r.callbackUrl,
    cell: (r) => r.callbackUrl || <span className="muted">{t('screens.merchant.none')}</span>,
    width: 'minmax(160px, 1.2fr)',
    hiddenByDefault: true,
  },
  {
    id: 'createdAt',
    header: 'screens.merchant.createdAt',
    value: (r) => r.createdAt,
    cell: (r) => formatTime(r.createdAt),
    width: '150px',
    sortable: true,
    hiddenByDefault: true,
  },
];

/** Merchants of the platform: terms, status and keys; filters `q`, `status` and `agentId` live in the URL. */
export default function MerchantScreen() {
  const t = useT();
  const grants = useStore($grants);
  const agents = useQuery({
    queryKey: ['merchant-screen', 'agents'],
    queryFn: () => api(endpoints.agent.list, { pageSize: 100 }),
    enabled: allows(grants, [endpoints.agent.list]),
    staleTime: 60_000,
  });
  const filters: Filter[] = [
    { id: 'q', label: t('screens.merchant.search'), kind: 'text' },
    {
      id: 'status',
      label: t('screens.merchant.status'),
      kind: 'select',
      options: (['active', 'frozen'] as const).map((s) => ({
        value: s,
        label: t(`screens.merchant.statuses.${s}`),
      })),
    },
    // Present before the agents load, so a link with `agentId` filters from the first page on.
    ...(allows(grants, [endpoints.agent.list])
      ? [
          {
            id: 'agentId',
            label: t('screens.merchant.agent'),
            kind: 'select' as const,
            options: (agents.data?.list ?? []).map((a) => ({
              value: String(a.id),
              label: `${a.code} ${a.name}`,
            })),
          },
        ]
      : []),
  ];
  return (
    <Page title={t('commands.merchant.list.title')} actions={<CommandButton id="merchant.create" primary />}>
      <DataTable
        id="merchant"
        label={t('commands.merchant.list.title')}
        endpoint={endpoints.merchant.list}
        context="merchant"
        columns={columns}
        filters={filters}
        paging="page"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => `${r.code} · ${r.name}`}
        detail={(r) => <MerchantDetail merchant={r} />}
      />
    </Page>
  );
}
