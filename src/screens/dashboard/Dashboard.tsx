import { useStore } from '@nanostores/react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { queueEntries, queueLabel } from '../../../commands/queues.ts';
import { allows, endpoints, type Output } from '../../../contract/index.ts';
import { payin, payout } from '../../../contract/machines.ts';
import { api } from '../../lib/api.ts';
import { formatTime, relativeTime, thousands } from '../../lib/format.ts';
import { roleName } from '../../lib/names.ts';
import { $grants, $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { keyCaps } from '../../shell/keys.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Can } from '../../ui/Can.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { Spinner } from '../../ui/Spinner.tsx';
import { Page } from '../Page.tsx';
import './dashboard.css';
import { Notices } from './Notices.tsx';
import { RiskRefusals } from './RiskRefusals.tsx';
import { rateBases, ratePercent, rateTone } from './rates.ts';

// Charts load with their own chunk, after the figures are on screen (PERFORMANCE.md rule 5).
const ColumnChart = lazy(() => import('../../ui/Chart.tsx').then((m) => ({ default: m.ColumnChart })));
const MeterList = lazy(() => import('../../ui/Chart.tsx').then((m) => ({ default: m.MeterList })));

type Summary = Output<typeof endpoints.dashboard.summary>;
type Figures = Summary['today']['payin'][number];

const outcomeTone = { ok: 'ok', failed: 'bad', denied: 'warn' } as const;

const machineOf = { payin, payout } as const;

/** The list's filter to these states (`status=a&status=b`). */
const inStatus = (states: readonly string[]) => states.map((s) => `status=${s}`).join('&');

/** The dashboard's periods and the order lists' range presets that cover the same days. */
const periods = [
  { id: 'today', key: 'today', range: 'today' },
  { id: '7d', key: 'last7Days', range: '7d' },
  { id: '30d', key: 'last30Days', range: '30d' },
] as const;
type PeriodId = (typeof periods)[number]['id'];

function Money({ value, currency }: { value: string; currency: string }) {
  return (
    <span className="money">
      {thousands(value)} <span className="money-currency">{currency}</span>
    </span>
  );
}

/** One kind of order over the chosen period: amount first, then count, success rate and fees. */
/** A link into a list, narrowed to the merchant the dashboard shows (a platform user's pick), if any. */
function useInView(): (href: string) => string {
  const [merchantId] = useMerchantParam();
  return (href) =>
    merchantId === undefined ? href : `${href}${href.includes('?') ? '&' : '?'}merchantId=${merchantId}`;
}

function FigureCard({
  kind,
  figures,
  range,
  merchantView,
}: {
  kind: 'payin' | 'payout';
  figures: Figures[];
  range: string;
  merchantView: boolean;
}) {
  const t = useT();
  const inView = useInView();
  const list = kind === 'payin' ? '/order' : '/payout';
  const success = inStatus(machineOf[kind].sets.succeeded);
  const rows = figures.length ? figures : [];
  return (
    <section className="card figure-card" aria-labelledby={`figures-${kind}`}>
      <div className="card-head">
        <h2 className="card-title" id={`figures-${kind}`}>
          {t(`screens.dashboard.${kind}`)}
        </h2>
        <Link href={inView(`${list}?range=${range}`)} className="link">
          {t('screens.dashboard.openList')}
        </Link>
      </div>
      {rows.length === 0 && <p className="muted">{t('screens.dashboard.noOrders')}</p>}
      {rows.map((f) => (
        <div key={f.currency} className="figure">
          <Link href={inView(`${list}?range=${range}&${success}`)} className="figure-amount">
            <Money value={f.amount} currency={f.currency} />
            <span className="figure-caption">{t(`screens.dashboard.${kind}Amount`)}</span>
          </Link>
          <dl className="figure-facts">
            <div>
              <dt>{t('screens.dashboard.orders')}</dt>
              <dd>
                <Link href={inView(`${list}?range=${range}`)}>{thousands(f.count)}</Link>
              </dd>
            </div>
            <div>
              <dt>{t(`screens.dashboard.${kind}Success`)}</dt>
              <dd>
                <Link href={inView(`${list}?range=${range}&${success}`)}>{thousands(f.successCount)}</Link>
              </dd>
            </div>
            <div>
              <dt>{t('screens.dashboard.successRate')}</dt>
              <dd className={`rate rate-${rateTone(f.successRatePpm)}`}>{ratePercent(f.successRatePpm)}</dd>
            </div>
            <div>
              <dt>{t(merchantView ? 'screens.dashboard.feesPaid' : 'screens.dashboard.feeIncome')}</dt>
              <dd>
                <Money value={f.fee} currency={f.currency} />
              </dd>
            </div>
          </dl>
          <p className="figure-note">{t('screens.dashboard.rateBases', rateBases(f))}</p>
        </div>
      ))}
    </section>
  );
}

/** Work waiting for a person, each a link into the list filtered to exactly that work. */
function Queues({ queues, merchantView }: { queues: Summary['queues']; merchantView: boolean }) {
  const t = useT();
  const inView = useInView();
  // The server answers null for a queue the user may not see.
  const items = queueEntries.flatMap((q) => {
    const value = queues[q.key];
    return value === null ? [] : [{ ...q, value }];
  });
  return (
    <section className="card card-wide" aria-labelledby="queues-title">
      <h2 className="card-title" id="queues-title">
        {t('screens.dashboard.queues')}
      </h2>
      <ul className="queues">
        {items.map((q) => (
          <li key={q.key} className={`queue${q.value > 0 ? ' waiting' : ''}`}>
            <Link href={inView(q.href)} className="queue-link">
              <span className="queue-value">{thousands(q.value)}</span>
              <span className="queue-label">{t(queueLabel(q, merchantView ? 'merchant' : 'platform'))}</span>
            </Link>
            {q.also && (
              <Link href={inView(q.also.href)} className="queue-also">
                {t(q.also.label)}
              </Link>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Daily collections and payouts of the last 30 days, per currency. */
function DailyChart({ daily }: { daily: Summary['daily'] }) {
  const t = useT();
  const currencies = [...new Set(daily.map((d) => d.currency))];
  const [chosen, setChosen] = useState<string | undefined>();
  const currency = chosen && currencies.includes(chosen) ? chosen : currencies[0];
  const days = daily.filter((d) => d.currency === currency);
  return (
    <section className="card card-wide chart-card" aria-labelledby="daily-title">
      <div className="card-head">
        <h2 className="card-title" id="daily-title">
          {t('screens.dashboard.dailyTitle')}
        </h2>
        {currencies.length > 1 && (
          <fieldset className="segmented" aria-label={t('screens.dashboard.currency')}>
            {currencies.map((c) => (
              <button key={c} type="button" aria-pressed={c === currency} onClick={() => setChosen(c)}>
                {c}
              </button>
            ))}
          </fieldset>
        )}
      </div>
      {days.length === 0 ? (
        <p className="muted">{t('screens.dashboard.noOrders')}</p>
      ) : (
        <Suspense fallback={<div className="chart-placeholder" />}>
          <ColumnChart
            title={t('screens.dashboard.dailyChart', { currency: currency ?? '' })}
            labelHeader={t('screens.dashboard.date')}
            labels={days.map((d) => d.date)}
            shortLabel={(date) => date.slice(5)}
            series={(['payin', 'payout'] as const).map((k) => ({
              name: t(k === 'payin' ? 'screens.dashboard.seriesPayin' : 'screens.dashboard.seriesPayout', {
                currency: currency ?? '',
              }),
              color: `var(--chart-${k})`,
              values: days.map((d) => Number(d[`${k}Amount` as const])),
              display: days.map(
                (d) =>
                  `${thousands(d[`${k}Amount` as const])} · ${t('screens.dashboard.ordersOf', {
                    paid: thousands(d[`${k}SuccessCount` as const]),
                    count: thousands(d[`${k}Count` as const]),
                  })}`,
              ),
            }))}
          />
        </Suspense>
      )}
    </section>
  );
}

/** Pay-in success rate per channel over the last 7 days, each bar a link to the channel's orders. */
function ChannelRates({ channels }: { channels: Summary['channels'] }) {
  const t = useT();
  const inView = useInView();
  return (
    <section className="card card-wide chart-card" aria-labelledby="channels-title">
      <h2 className="card-title" id="channels-title">
        {t('screens.dashboard.channelsTitle')}
      </h2>
      <Suspense fallback={<div className="chart-placeholder small" />}>
        <MeterList
          title={t('screens.dashboard.channelsTitle')}
          empty={t('screens.dashboard.noOrders')}
          meters={channels.map((c) => ({
            key: String(c.channelId),
            label: c.channelName,
            href: inView(`/order?range=7d&channelId=${c.channelId}`),
            ratio: c.successRatePpm === null ? null : c.successRatePpm / 1_000_000,
            value: ratePercent(c.successRatePpm),
            note: t('screens.dashboard.channelNote', {
              code: c.channelCode,
              paid: thousands(c.payinSuccessCount),
              finished: thousands(c.payinFinishedCount),
            }),
            tone: rateTone(c.successRatePpm),
          }))}
        />
      </Suspense>
    </section>
  );
}

/** The live figures: period figures, queues, the 30-day chart and the channels; refreshed every 30 s. */
function LiveFigures({ merchantView }: { merchantView: boolean }) {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const periodId: PeriodId = periods.find((p) => p.id === params.get('period'))?.id ?? 'today';
  const period = periods.find((p) => p.id === periodId) ?? periods[0];
  // A platform user may look at one merchant (the merchant picker; `merchantId` in the address).
  const [merchantId, setMerchantId] = useMerchantParam();
  const summary = useQuery({
    queryKey: ['dashboard', 'summary', merchantId],
    queryFn: ({ signal }) => api(endpoints.dashboard.summary, { merchantId }, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  if (!summary.data) return summary.isLoading ? <Spinner /> : null;
  const s = summary.data;
  const chosen = s[period.key];
  return (
    <>
      <div className="dashboard-bar">
        <fieldset className="segmented" aria-label={t('screens.dashboard.period')}>
          {periods.map((p) => (
            <button
              key={p.id}
              type="button"
              aria-pressed={p.id === periodId}
              onClick={() =>
                setParams(
                  (q) => {
                    const out = new URLSearchParams(q);
                    if (p.id === 'today') out.delete('period');
                    else out.set('period', p.id);
                    return out;
                  },
                  { replace: true },
                )
              }
            >
              {t(`screens.dashboard.periods.${p.id}`)}
            </button>
          ))}
        </fieldset>
        {!merchantView && <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
        <span className="muted dashboard-asof" title={s.businessTimeZone}>
          {t('screens.dashboard.asOf', {
            from: formatTime(chosen.from, false),
            time: formatTime(summary.dataUpdatedAt, false),
          })}
        </span>
      </div>
      <div className="cards dashboard-grid">
        <FigureCard kind="payin" figures={chosen.payin} range={period.range} merchantView={merchantView} />
        <FigureCard kind="payout" figures={chosen.payout} range={period.range} merchantView={merchantView} />
        <Queues queues={s.queues} merchantView={merchantView} />
        <RiskRefusals refusals={s.riskRefusals} />
        <DailyChart daily={s.daily} />
        <ChannelRates channels={s.channels} />
      </div>
    </>
  );
}

function Counts() {
  const t = useT();
  const grants = useStore($grants);
  const admins = useQuery({
    queryKey: ['dashboard', 'admins'],
    queryFn: () => api(endpoints.admin.list, { pageSize: 1 }),
    enabled: allows(grants, [endpoints.admin.list]),
  });
  const roles = useQuery({
    queryKey: ['dashboard', 'roles'],
    queryFn: () => api(endpoints.role.list, { pageSize: 1 }),
    enabled: allows(grants, [endpoints.role.list]),
  });
  const disabled = useQuery({
    queryKey: ['dashboard', 'admins-disabled'],
    queryFn: () => api(endpoints.admin.list, { pageSize: 1, status: 'disabled' }),
    enabled: allows(grants, [endpoints.admin.list]),
  });
  if (!admins.data && !roles.data) return null;
  return (
    <section className="card">
      <h2 className="card-title">{t('screens.dashboard.team')}</h2>
      <div className="stats">
        {admins.data && (
          <Link href="/admin" className="stat">
            <span className="stat-value">{thousands(admins.data.total)}</span>
            <span className="stat-label">{t('screens.dashboard.administrators')}</span>
          </Link>
        )}
        {disabled.data && (
          <Link href="/admin?status=disabled" className="stat">
            <span className="stat-value">{thousands(disabled.data.total)}</span>
            <span className="stat-label">{t('screens.dashboard.disabled')}</span>
          </Link>
        )}
        {roles.data && (
          <Link href="/role" className="stat">
            <span className="stat-value">{thousands(roles.data.total)}</span>
            <span className="stat-label">{t('screens.dashboard.roles')}</span>
          </Link>
        )}
      </div>
    </section>
  );
}

function RecentLog() {
  const t = useT();
  const log = useQuery({
    queryKey: ['dashboard', 'log'],
    queryFn: () => api(endpoints.log.list, { pageSize: 8 }),
    refetchInterval: 30_000,
  });
  return (
    <section className="card card-wide">
      <div className="card-head">
        <h2 className="card-title">{t('screens.dashboard.recent')}</h2>
        <Link href="/log" className="link">
          {t('screens.dashboard.openLog')}
        </Link>
      </div>
      {log.data && log.data.list.length === 0 && <p className="muted">{t('table.empty')}</p>}
      <ul className="activity">
        {(log.data?.list ?? []).map((row) => (
          <li key={row.id}>
            <time dateTime={row.at} title={formatTime(row.at)}>
              {relativeTime(row.at, t)}
            </time>
            <span className="activity-user">{row.username}</span>
            <code className="activity-action">{row.action}</code>
            <Badge tone={outcomeTone[row.outcome]}>{t(`screens.log.outcomes.${row.outcome}`)}</Badge>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Home: the business at a glance (figures, queues, charts), then who is signed in and what happened lately. */
export default function Dashboard() {
  const t = useT();
  const user = useStore($user);
  if (!user) return null;
  const everything = user.perms.includes('*');
  return (
    <Page title={t('commands.home.dashboard.title')}>
      <Notices />
      <Can needs={[endpoints.dashboard.summary]}>
        <LiveFigures merchantView={user.kind === 'merchant'} />
      </Can>
      <div className="cards">
        <section className="card">
          <h2 className="card-title">{t('screens.dashboard.account')}</h2>
          <dl className="facts">
            <div>
              <dt>{t('screens.admin.username')}</dt>
              <dd>{user.username}</dd>
            </div>
            <div>
              <dt>{t('screens.admin.nickname')}</dt>
              <dd>{user.name}</dd>
            </div>
            <div>
              <dt>{t('screens.dashboard.kind')}</dt>
              <dd>{t(`screens.dashboard.kinds.${user.kind}`)}</dd>
            </div>
            <div>
              <dt>{t('screens.admin.roles')}</dt>
              <dd>{user.roles.map(roleName).join(', ')}</dd>
            </div>
            <div>
              <dt>{t('screens.dashboard.permissions')}</dt>
              <dd>{everything ? t('screens.role.all') : thousands(user.perms.length)}</dd>
            </div>
            <div>
              <dt>{t('screens.admin.google')}</dt>
              <dd>
                {user.googleBound ? (
                  <Badge tone="ok">{t('screens.admin.bound')}</Badge>
                ) : (
                  <Link href="/code" className="link">
                    {t('screens.dashboard.bindNow')}
                  </Link>
                )}
              </dd>
            </div>
          </dl>
        </section>
        <Counts />
        <section className="card">
          <h2 className="card-title">{t('screens.dashboard.keyboard')}</h2>
          <ul className="hints">
            <li>
              <span className="keys">
                {keyCaps('mod+k').map((k) => (
                  <kbd key={k}>{k}</kbd>
                ))}
              </span>
              {t('screens.dashboard.hintPalette')}
            </li>
            <li>
              <span className="keys">
                <kbd>{keyCaps('?')[0]}</kbd>
              </span>
              {t('screens.dashboard.hintSheet')}
            </li>
            <li>
              <span className="keys">
                {keyCaps('g l').map((k) => (
                  <kbd key={k}>{k}</kbd>
                ))}
              </span>
              {t('screens.dashboard.hintGo')}
            </li>
          </ul>
        </section>
        <Can needs={[endpoints.log.list]}>
          <RecentLog />
        </Can>
      </div>
    </Page>
  );
}
