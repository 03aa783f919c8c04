import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { orderPath } from '../../../commands/statement.ts';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { formatTime } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { Field } from '../../ui/form.tsx';
import { MerchantCell } from '../../ui/MerchantCell.tsx';
import { Spinner } from '../../ui/Spinner.tsx';
import { Page } from '../Page.tsx';
import { Money } from '../wallet/money.tsx';
import { $businessTimeZone, businessToday } from './report.ts';
import './stat.css';

const positive = (v: string | null) => (v && /^[1-9]\d*$/.test(v) ? Number(v) : undefined);

/**
 * The paid orders behind a reconciliation row's unproved figure (`/stat/unproved?day=…&accountId=…` or
 * `channelId=…`): forced, supplemented without a line, or paid on the channel's word, each a link to the
 * order, so a person can check them against the bank.
 */
export default function UnprovedScreen() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const day = params.get('day') ?? '';
  const dayGiven = /^\d{4}-\d{2}-\d{2}$/.test(day);
  const accountId = positive(params.get('accountId'));
  const channelId = positive(params.get('channelId'));
  const label = params.get('label') ?? '';
  const answer = useQuery({
    queryKey: ['stat-unproved', day, accountId ?? null, channelId ?? null],
    queryFn: ({ signal }) => api(endpoints.statOrder.unproved, { day, accountId, channelId }, { signal }),
    enabled: dayGiven,
  });
  // Opened without its day (a typed address, a bookmark): it asks for the day instead of waiting for one.
  if (!dayGiven)
    return (
      <Page title={t('reconciliation.unprovedTitleAll')}>
        <p className="muted">{t('reconciliation.unprovedHint')}</p>
        <ChooseDay
          onDay={(chosen) =>
            setParams((p) => {
              p.set('day', chosen);
              return p;
            })
          }
        />
      </Page>
    );
  const rows = answer.data?.list ?? [];
  return (
    <Page
      title={
        label
          ? t('reconciliation.unprovedTitle', { label, day })
          : t('reconciliation.unprovedTitleDay', { day })
      }
    >
      <p className="muted">{t('reconciliation.unprovedHint')}</p>
      {answer.isPending ? (
        <Spinner />
      ) : rows.length === 0 ? (
        <p className="muted">{t('reconciliation.unprovedNone')}</p>
      ) : (
        <table className="mini-table">
          <thead>
            <tr>
              <th>{t('screens.order.orderNo')}</th>
              <th>{t('screens.order.merchant')}</th>
              <th className="num">{t('screens.order.paidAmount')}</th>
              <th>{t('reconciliation.paidBy')}</th>
              <th>{t('reconciliation.paidAt')}</th>
              <th>{t('screens.order.utr')}</th>
              <th>{t('reconciliation.account')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((o) => (
              <tr key={o.id}>
                <td className="mono">
                  <Link href={orderPath(o.orderNo)} className="link">
                    {o.orderNo}
                  </Link>
                </td>
                <td>
                  <MerchantCell code={o.merchantCode} />
                </td>
                <td className="num">
                  <Money value={o.paidAmount} />
                </td>
                <td>{o.paidBy ? t(`reconciliation.paidByKinds.${o.paidBy}`) : '—'}</td>
                <td>{formatTime(o.paidAt)}</td>
                <td className="mono">{o.utr ?? '—'}</td>
                <td>{o.accountLabel}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {answer.data?.capped && (
        <p className="muted">{t('reconciliation.unprovedCapped', { n: rows.length })}</p>
      )}
    </Page>
  );
}

/** The business day to list, today's by default. */
function ChooseDay({ onDay }: { onDay: (day: string) => void }) {
  const t = useT();
  const today = businessToday(useStore($businessTimeZone));
  const [day, setDay] = useState(today);
  return (
    <form
      className="choose-day"
      onSubmit={(e) => {
        e.preventDefault();
        if (day) onDay(day);
      }}
    >
      <Field
        label={t('reconciliation.unprovedDay')}
        type="date"
        value={day}
        onValue={setDay}
        max={today}
        required
      />
      <button type="submit" className="button primary">
        {t('reconciliation.unprovedShow')}
      </button>
    </form>
  );
}
