import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { DetailSection } from '../../ui/DetailDrawer.tsx';
import { Deadline, DisputeStatus, kindLabel } from './parts.tsx';
import './dispute.css';

/** A paid pay-in's disputes in its drawer, each with what it holds and its deadline, linked to its own drawer. */
export function OrderDisputes({ payinId }: { payinId: number }) {
  const t = useT();
  const q = useQuery({
    queryKey: ['order-disputes', payinId],
    queryFn: ({ signal }) => api(endpoints.dispute.list, { payinId, pageSize: 50 }, { signal }),
  });
  const list = q.data?.list;
  if (!list) return null;
  return (
    <DetailSection title={t('screens.dispute.section')}>
      {list.length === 0 ? (
        <p className="muted">{t('screens.dispute.none')}</p>
      ) : (
        <div className="mini-table-wrap">
          <table className="mini-table">
            <thead>
              <tr>
                <th>{t('screens.dispute.disputeNo')}</th>
                <th>{t('screens.dispute.kind')}</th>
                <th className="num">{t('screens.dispute.amount')}</th>
                <th className="num">{t('screens.dispute.held')}</th>
                <th>{t('screens.dispute.status')}</th>
                <th>{t('screens.dispute.deadline')}</th>
              </tr>
            </thead>
            <tbody>
              {list.map((d) => (
                <tr key={d.id}>
                  <td className="mono">
                    <Link className="link" href={`/dispute?dispute=${d.id}`}>
                      {d.disputeNo}
                    </Link>
                  </td>
                  <td>{kindLabel(d.kind)}</td>
                  <td className="num">{thousands(d.amount)}</td>
                  <td className="num">{thousands(d.held)}</td>
                  <td>
                    <DisputeStatus status={d.status} />
                  </td>
                  <td>
                    <Deadline row={d} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </DetailSection>
  );
}
