import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { allows } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { formatTime, relativeTime, thousands } from '../../lib/format.ts';
import { roleName } from '../../lib/names.ts';
import { $grants, $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { keyCaps } from '../../shell/keys.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Can } from '../../ui/Can.tsx';
import { Page } from '../Page.tsx';

const outcomeTone = { ok: 'ok', failed: 'bad', denied: 'warn' } as const;

function Count({ label, value, href }: { label: string; value: string; href: string }) {
  return (
    <Link href={href} className="stat">
      <span className="stat-value">{value}</span>
      <span className="stat-label">{label}</span>
    </Link>
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
          <Count
            label={t('screens.dashboard.administrators')}
            value={thousands(admins.data.total)}
            href="/admin"
          />
        )}
        {disabled.data && (
          <Count
            label={t('screens.dashboard.disabled')}
            value={thousands(disabled.data.total)}
            href="/admin?status=disabled"
          />
        )}
        {roles.data && (
          <Count label={t('screens.dashboard.roles')} value={thousands(roles.data.total)} href="/role" />
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

/** Home: who is signed in, what they may do, and what happened lately. */
export default function Dashboard() {
  const t = useT();
  const user = useStore($user);
  if (!user) return null;
  const everything = user.perms.includes('*');
  return (
    <Page title={t('commands.home.dashboard.title')}>
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
