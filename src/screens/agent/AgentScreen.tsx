import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
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
import { statusTone } from '../merchant/MerchantScreen.tsx';
import { percent } from '../merchant/terms.ts';
import { Page } from '../Page.tsx';
import '../merchant/merchant.css';

type Agent = Contexts['agent'];

const columns: Column<Agent>[] = [
  {
    id: 'code',
    header: 'screens.agent.code',
    value: (r) => r.code,
    cell: (r) => <code>{r.code}</code>,
    width: '100px',
    sortable: true,
  },
  {
    id: 'name',
    header: 'screens.agent.name',
    value: (r) => r.name,
    width: 'minmax(140px, 1.5fr)',
    sortable: true,
  },
  {
    id: 'commissionRate',
    header: 'screens.agent.commissionRate',
    value: (r) => Number(r.commissionRate),
    cell: (r) => percent(r.commissionRate),
    width: '120px',
    sortable: true,
  },
  {
    id: 'merchantCount',
    header: 'screens.agent.merchantCount',
    value: (r) => r.merchantCount,
    cell: (r) =>
      r.merchantCount > 0 ? (
        <Link href={`/merchant?agentId=${r.id}`}>{thousands(r.merchantCount)}</Link>
      ) : (
        '0'
      ),
    width: '110px',
    sortable: true,
  },
  {
    id: 'commissionPayable',
    header: 'screens.agent.commissionPayable',
    value: (r) => Number(r.commissionPayable),
    cell: (r) => thousands(r.commissionPayable),
    width: 'minmax(130px, 1fr)',
    sortable: true,
  },
  {
    id: 'status',
    header: 'screens.agent.status',
    value: (r) => r.status,
    cell: (r) => (
      <Badge tone={r.status === 'active' ? 'ok' : 'muted'}>{t(`screens.agent.statuses.${r.status}`)}</Badge>
    ),
    width: '90px',
    sortable: true,
  },
  {
    id: 'createdAt',
    header: 'screens.agent.createdAt',
    value: (r) => r.createdAt,
    cell: (r) => formatTime(r.createdAt),
    width: '150px',
    sortable: true,
  },
];

/** The merchants an agent brought, in its drawer. */
function AgentMerchants({ agent }: { agent: Agent }) {
  const t = useT();
  const grants = useStore($grants);
  const merchants = useQuery({
    queryKey: ['agent-detail', 'merchants', agent.id],
    queryFn: () => api(endpoints.merchant.list, { agentId: agent.id, pageSize: 100 }),
    enabled: allows(grants, [endpoints.merchant.list]),
  });
  if (!allows(grants, [endpoints.merchant.list])) return null;
  return (
    <section className="detail-extra">
      <h3>{t('screens.agent.merchants')}</h3>
      {!merchants.data ? (
        <p className="muted">{t('app.loading')}</p>
      ) : merchants.data.list.length === 0 ? (
        <p className="muted">{t('screens.agent.noMerchants')}</p>
      ) : (
        <table className="mini-table">
          <thead>
            <tr>
              <th>{t('screens.merchant.code')}</th>
              <th>{t('screens.merchant.name')}</th>
              <th>{t('screens.merchant.collectionRate')}</th>
              <th>{t('screens.merchant.status')}</th>
            </tr>
          </thead>
          <tbody>
            {merchants.data.list.map((m) => (
              <tr key={m.id}>
                <td>
                  <Link href={`/merchant?q=${encodeURIComponent(m.code)}`}>
                    <code>{m.code}</code>
                  </Link>
                </td>
                <td>{m.name}</td>
                <td>{percent(m.collectionRate)}</td>
                <td>
                  <Badge tone={statusTone[m.status]}>{t(`screens.merchant.statuses.${m.status}`)}</Badge>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Agents: who brings merchants, at what commission, and what the platform owes them. */
export default function AgentScreen() {
  const t = useT();
  const filters: Filter[] = [{ id: 'q', label: t('screens.agent.search'), kind: 'text' }];
  return (
    <Page title={t('commands.agent.list.title')} actions={<CommandButton id="agent.create" primary />}>
      <DataTable
        id="agent"
        label={t('commands.agent.list.title')}
        endpoint={endpoints.agent.list}
        context="agent"
        columns={columns}
        filters={filters}
        paging="page"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => `${r.code} · ${r.name}`}
        detail={(r) => <AgentMerchants agent={r} />}
      />
    </Page>
  );
}
