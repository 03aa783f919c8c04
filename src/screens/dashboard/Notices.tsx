import { useQuery } from '@tanstack/react-query';
import { endpoints, type Output } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { formatTime, relativeTime } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import './notices.css';

type Notice = Output<typeof endpoints.memo.notices>['list'][number];

/**
 * A notice's text as plain text: React writes it as a text node (markup shows as typed, never runs), and
 * `white-space: pre-line` keeps its line breaks. Never `dangerouslySetInnerHTML`.
 */
export function NoticeText({ text }: { text: string }) {
  return text ? <p className="notice-text">{text}</p> : null;
}

/** The notices as a list: pinned ones marked, each with its time. Pure, for the render test. */
export function NoticeList({ notices }: { notices: readonly Notice[] }) {
  const t = useT();
  return (
    <ul className="notices">
      {notices.map((n) => (
        <li key={n.id} className={n.pinned ? 'notice-item pinned' : 'notice-item'}>
          <div className="notice-head">
            <strong className="notice-title">{n.title}</strong>
            {n.pinned && <Badge tone="info">{t('screens.dashboard.pinned')}</Badge>}
            <time className="muted" dateTime={n.createdAt} title={formatTime(n.createdAt)}>
              {relativeTime(n.createdAt, t)}
            </time>
          </div>
          <NoticeText text={n.body} />
        </li>
      ))}
    </ul>
  );
}

/** The dashboard's notices from the system memo, for the signed-in user's audience; nothing when none. */
export function Notices() {
  const t = useT();
  const notices = useQuery({
    queryKey: ['dashboard', 'notices'],
    queryFn: ({ signal }) => api(endpoints.memo.notices, {}, { signal }),
    refetchInterval: 60_000,
  });
  const list = notices.data?.list ?? [];
  if (list.length === 0) return null;
  return (
    <section className="card card-wide notices-card" aria-labelledby="notices-title">
      <h2 className="card-title" id="notices-title">
        {t('screens.dashboard.notices')}
      </h2>
      <NoticeList notices={list} />
    </section>
  );
}
