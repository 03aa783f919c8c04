import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import type { Contexts } from '../../../commands/index.ts';
import { allows, endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { t } from '../../lib/i18n.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf, hidden } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { MerchantDetail } from './MerchantDetail.tsx';
import { cycleLabel, limitsLabel } from './terms.ts';
import './merchant.css';

type Merchant = Contexts['merchant'];

export const statusTone = { active: 'ok', frozen: 'bad' } as const;

const c = columnsOf<Merchant>('screens.merchant');

const columns: Column<Merchant>[] = [
  c.code('code', '110px'),
  c.text('name', 'minmax(120px, 1.5fr)'),
  c.badge('status', (r) => statusTone[r.status], 'statuses', '80px'),
  c.of('agent', (r) => r.agentName ?? '', {
    cell: (r) => r.agentName ?? <span className="muted">{t('screens.merchant.noAgent')}</span>,
    width: 'minmax(100px, 1fr)',
  }),
  c.rate('collectionRate', '100px'),
  c.count('platformFee', '100px', hidden),
  c.rate('payoutRate', '90px'),
  c.count('payoutFee', '100px', hidden),
  c.rate('surcharge', '90px', hidden),
  c.of('exchangeRate', (r) => Number(r.exchangeRate), { width: '100px', ...hidden }),
  c.of('limits', (r) => Number(r.maxAmount), {
    cell: (r) => limitsLabel(r.minAmount, r.maxAmount),
    width: 'minmax(160px, 1fr)',
    sortable: false,
  }),
  c.text('settlementCycle', '80px', { cell: (r) => cycleLabel(r.settlementCycle) }),
  c.of('channels', (r) => r.channels.map((ch) => ch.code).join(', '), {
    width: 'minmax(110px, 1fr)',
    ...hidden,
  }),
  c.text('callbackUrl', 'minmax(160px, 1.2fr)', {
    cell: (r) => r.callbackUrl || <span className="muted">{t('screens.merchant.none')}</span>,
    ...hidden,
  }),
  c.time('createdAt', '150px', { hiddenByDefault: true }),
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
    <ListScreen
      id="merchant"
      endpoint={endpoints.merchant.list}
      context="merchant"
      create
      columns={columns}
      filters={filters}
      paging="page"
      detailTitle={(r) => `${r.code} · ${r.name}`}
      detail={(r) => <MerchantDetail merchant={r} />}
    />
  );
}
