import { useStore } from '@nanostores/react';
import { Link } from 'wouter';
import { orderPath } from '../../commands/statement.ts';
import { actionWords } from '../lib/actionWords.ts';
import { formatTime } from '../lib/format.ts';
import { $sessionLog, type SessionEntry } from '../lib/sessionLog.ts';
import { $undoOffer, undoLast } from '../lib/undo.ts';
import { useT } from '../lib/useT.ts';
import { Badge } from '../ui/Badge.tsx';
import { Modal } from '../ui/Modal.tsx';

/**
 * This session's actions (L): every write of this tab, newest first, with its result, the screen it was
 * made from and the order it named; the newest undoable one keeps its Undo while the offer lasts.
 */
export default function SessionLogDialog({ close }: { close: (result?: unknown) => void }) {
  const t = useT();
  const entries = useStore($sessionLog);
  const offer = useStore($undoOffer);
  return (
    <Modal
      title={t('sessionLog.title')}
      description={t('sessionLog.about')}
      variant="drawer"
      onClose={() => close()}
    >
      {entries.length === 0 ? (
        <p className="muted">{t('sessionLog.empty')}</p>
      ) : (
        <ol className="session-log" aria-label={t('sessionLog.title')}>
          {entries.map((e) => (
            <li key={e.id} className="session-log-entry">
              <div className="session-log-head">
                <time>{formatTime(e.at)}</time>
                <Outcome entry={e} />
              </div>
              <div className="session-log-what">
                {e.reverses === undefined
                  ? actionWords(e.action)
                  : t('sessionLog.undoOf', { what: actionWords(e.action) })}
              </div>
              {!e.ok && e.message && (
                <div className="session-log-message">
                  {e.errno}: {e.message}
                </div>
              )}
              <div className="session-log-links">
                <Link className="link" href={e.where} onClick={() => close()}>
                  {t('sessionLog.where')}
                </Link>
                {e.orderNo && (
                  <Link className="link" href={orderPath(e.orderNo)} onClick={() => close()}>
                    {e.orderNo}
                  </Link>
                )}
                {offer?.entry === e.id && (
                  <button type="button" className="link" onClick={() => void undoLast()}>
                    {t('app.undo.action')}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ol>
      )}
    </Modal>
  );
}

function Outcome({ entry }: { entry: SessionEntry }) {
  const t = useT();
  if (entry.undone) return <Badge tone="muted">{t('sessionLog.undone')}</Badge>;
  return entry.ok ? (
    <Badge tone="ok">{t('sessionLog.ok')}</Badge>
  ) : (
    <Badge tone="bad">{t('sessionLog.refused')}</Badge>
  );
}
