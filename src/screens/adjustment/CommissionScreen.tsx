import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'wouter';
import { agentInView } from '../../../commands/adjustment.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { formatTime, thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { Spinner } from '../../ui/Spinner.tsx';
import { percent } from '../merchant/terms.ts';
import { Page } from '../Page.tsx';
import { learnTimeZone, ReportPeriodChooser, useReportPeriod } from '../stat/ReportPeriod.tsx';
import { Money } from '../wallet/money.tsx';
import '../../ui/lists.css';
import './adjustment.css';

/**
 * An agent's commission statement (`/agent/commission?agentId=…`): for the period's business days, what
 * each of its merchants brought (pay-ins created in the period and paid, their amount, the agent's
 * commission, read from the order statistics), the commission payable now, and the payments made in the
 * period; Shift-P pays commission out with the bank's reference.
 */
export default function CommissionScreen() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const agentId = agentInView(`?${params.toString()}`);
  const range = useReportPeriod();
  const agents = useQuery({
    queryKey: ['commission-agents'],
    queryFn: ({ signal }) => api(endpoints.agent.list, { pageSize: 100 }, { signal }),
    staleTime: 30_000,
  });
  const statement = useQuery({
    queryKey: ['agent-commission', agentId ?? null, range.period?.from, range.period?.to],
    queryFn: async ({ signal }) => {
      const answer = await api(
        endpoints.agentCommission.statement,
        { agentId: agentId!, from: range.period!.from, to: range.period!.to },
        { signal },
      );
      learnTimeZone(answer);
      return answer;
    },
    enabled: agentId !== undefined && range.period !== null,
  });
  const s = statement.data;
  const chooseAgent = (id: string) =>
    setParams((p) => {
      const out = new URLSearchParams(p);
      if (id) out.set('agentId', id);
      else out.delete('agentId');
      return out;
    });

  return (
    <Page
      title={t('commands.agentCommission.statement.title')}
      actions={agentId !== undefined && <CommandButton id="agentCommission.pay" primary />}
    >
      <div className="commission-toolbar">
        <label className="filter">
          <span className="filter-label">{t('screens.commission.agent')}</span>
          <select value={agentId ?? ''} onChange={(e) => chooseAgent(e.target.value)}>
            <option value="">{t('screens.commission.chooseAgent')}</option>
            {(agents.data?.list ?? []).map((a) => (
              <option key={a.id} value={a.id}>
                {a.code} · {a.name}
              </option>
            ))}
          </select>
        </label>
        <ReportPeriodChooser range={range} />
      </div>
      {agentId === undefined ? (
        <p className="muted">{t('screens.commission.chooseAgent')}</p>
      ) : statement.isLoading ? (
        // Loading, not pending: a refused period waits without a spinner (its reason is under the chooser).
        <Spinner />
      ) : s ? (
        <CommissionStatement statement={s} />
      ) : null}
    </Page>
  );
}

type Statement = Output<typeof endpoints.agentCommission.statement>;

/** The statement of the period: the figures, what each merchant brought, the payments made. */
function CommissionStatement({ statement: s }: { statement: Statement }) {
  const t = useT();
  return (
    <>
      <div className="stats commission-stats">
        <div className="stat">
          <span className="stat-label">{t('screens.commission.rate')}</span>
          <span className="stat-value">{percent(s.commissionRate)}</span>
        </div>
        {s.totals.map((total) => (
          <div className="stat" key={`earned-${total.currency}`}>
            <span className="stat-label">{t('screens.commission.earned', { currency: total.currency })}</span>
            <span className="stat-value">{thousands(total.commission)}</span>
          </div>
        ))}
        {(s.payable.length ? s.payable : [{ currency: '', balance: '0.00' }]).map((p) => (
          <div className="stat" key={`payable-${p.currency}`}>
            <span className="stat-label">{t('screens.commission.payable', { currency: p.currency })}</span>
            <span className="stat-value">{thousands(p.balance)}</span>
          </div>
        ))}
      </div>

      <h2 className="commission-heading">{t('screens.commission.byMerchant')}</h2>
      <div className="mini-table-wrap">
        <table className="mini-table">
          <thead>
            <tr>
              <th>{t('screens.commission.merchant')}</th>
              <th>{t('screens.commission.currency')}</th>
              <th className="num">{t('screens.commission.paidCount')}</th>
              <th className="num">{t('screens.commission.paidAmount')}</th>
              <th className="num">{t('screens.commission.commission')}</th>
            </tr>
          </thead>
          <tbody>
            {s.rows.length === 0 && (
              <tr>
                <td colSpan={5} className="muted">
                  {t('screens.commission.noMerchants')}
                </td>
              </tr>
            )}
            {s.rows.map((r) => (
              <tr key={`${r.merchantId}-${r.currency}`}>
                <td>
                  <code>{r.merchantCode}</code> {r.merchantName}
                </td>
                <td>{r.currency}</td>
                <td className="num">{thousands(r.paidCount)}</td>
                <td className="num">
                  <Money value={r.paidAmount} />
                </td>
                <td className="num">
                  <Money value={r.commission} />
                </td>
              </tr>
            ))}
          </tbody>
          {s.totals.length > 0 && (
            <tfoot>
              {s.totals.map((total) => (
                <tr key={total.currency} className="commission-total">
                  <th>{t('screens.commission.total')}</th>
                  <th>{total.currency}</th>
                  <th className="num">{thousands(total.paidCount)}</th>
                  <th className="num">
                    <Money value={total.paidAmount} />
                  </th>
                  <th className="num">
                    <Money value={total.commission} />
                  </th>
                </tr>
              ))}
            </tfoot>
          )}
        </table>
      </div>

      <Payments payments={s.payments} />
      <p className="muted">{t('screens.commission.hint', { zone: s.businessTimeZone })}</p>
    </>
  );
}

/** Commission paid out in the period, with the bank's reference. */
function Payments({ payments }: { payments: Statement['payments'] }) {
  const t = useT();
  return (
    <>
      <h2 className="commission-heading">{t('screens.commission.payments')}</h2>
      {payments.length === 0 ? (
        <p className="muted">{t('screens.commission.noPayments')}</p>
      ) : (
        <div className="mini-table-wrap">
          <table className="mini-table">
            <thead>
              <tr>
                <th>{t('screens.commission.paidAt')}</th>
                <th className="num">{t('screens.commission.amount')}</th>
                <th>{t('screens.commission.currency')}</th>
                <th>{t('screens.commission.reference')}</th>
                <th>{t('screens.commission.note')}</th>
                <th>{t('screens.commission.paidBy')}</th>
              </tr>
            </thead>
            <tbody>
              {payments.map((p) => (
                <tr key={p.id}>
                  <td>{formatTime(p.createdAt)}</td>
                  <td className="num">
                    <Money value={p.amount} />
                  </td>
                  <td>{p.currency}</td>
                  <td className="mono">{p.reference}</td>
                  <td>{p.note}</td>
                  <td>{p.paidBy}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
