import type { endpoints, Output } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';

type Refusals = Output<typeof endpoints.dashboard.summary>['riskRefusals'];

/** Requests the risk rules refused today, by rule (the platform's, or the merchant in view's). */
export function RiskRefusals({ refusals }: { refusals: Refusals }) {
  const t = useT();
  return (
    <section className="card card-wide" aria-labelledby="risk-refusals-title">
      <h2 className="card-title" id="risk-refusals-title">
        {t('screens.dashboard.riskRefusals')}
      </h2>
      {refusals.length === 0 ? (
        <p className="muted">{t('screens.dashboard.noRiskRefusals')}</p>
      ) : (
        <ul className="queues">
          {refusals.map((r) => (
            <li key={r.rule} className="queue waiting">
              <span className="queue-value">{thousands(r.count)}</span>
              <span className="queue-label">{t(`risk.rules.${r.rule}`)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
