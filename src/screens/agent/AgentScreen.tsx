import { useStore } from '@nanostores/react';
import { Link } from 'wouter';
import type { Contexts } from '../../../commands/index.ts';
import { allows, endpoints } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { useChoices } from '../../ui/choices.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { statusTone } from '../merchant/MerchantScreen.tsx';
import { percent } from '../merchant/terms.ts';
import '../merchant/merchant.css';

type Agent = Contexts['agent'];

const c = columnsOf<Agent>('screens.agent');

const columns: Column<Agent>[] = [
  c.code('code', '100px'),
  c.text('name', 'minmax(140px, 1.5fr)'),
  c.rate('commissionRate', '120px'),
  c.count('merchantCount', '110px', {
    cell: (r) =>
      r.merchantCount > 0 ? (
        <Link href={`/merchant?agentId=${r.id}`}>{thousands(r.merchantCount)}</Link>
      ) : (
        '0'
      ),
  }),
  c.count('commissionPayable', 'minmax(130px, 1fr)'),
  c.badge('status', (r) => (r.status === 'active' ? 'ok' : 'muted'), 'statuses', '90px'),
  c.time('createdAt'),
];

/** The merchants an agent brought, in its drawer. */
function AgentMerchants({ agent }: { agent: Agent }) {
  const t = useT();
  const grants = useStore($grants);
  const merchants = useChoices(
    endpoints.merchant.list,
    { agentId: agent.id },
    { enabled: allows(grants, [endpoints.merchant.list]) },
  );
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
    <ListScreen
      id="agent"
      endpoint={endpoints.agent.list}
      context="agent"
      create
      columns={columns}
      filters={filters}
      paging="page"
      detailTitle={(r) => `${r.code} · ${r.name}`}
      detail={(r) => <AgentMerchants agent={r} />}
    />
  );
}
