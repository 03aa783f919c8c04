import { useQuery } from '@tanstack/react-query';
import { attemptAnswer } from '../../../contract/callbackNotes.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { entryKindLabel } from '../../../contract/ledgerKinds.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { type CallbackStatus, callback } from '../../../contract/machines.ts';
import { api } from '../../lib/api.ts';
import { formatTime } from '../../lib/format.ts';
import { hasKey, t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { DetailSection } from '../../ui/DetailDrawer.tsx';
import { money } from './parts.tsx';

type Info = Output<typeof endpoints.merchantOrder.info>;
type CallbackEvent = Info['callbacks'][number];
type Posting = Info['postings'][number];

const eventTone: Record<CallbackStatus, Tone> = { pending: 'info', delivered: 'ok', gave_up: 'bad' };

/** A message key when it exists, else the raw value (accounts the console has no words for yet). */
function named(prefix: string, value: string): string {
  const key = `${prefix}.${value}`;
  return hasKey(key) ? t(key) : value;
}

/** Every callback of the order with every attempt: when, by hand or by schedule, HTTP status, answer. */
export function CallbackHistory({ events }: { events: CallbackEvent[] }) {
  const tr = useT();
  return (
    <DetailSection title={tr('screens.order.callbacks')}>
      {events.length === 0 ? (
        <p className="muted">{tr('screens.order.noCallbacks')}</p>
      ) : (
        events.map((e) => (
          <div key={e.messageId} className="callback-event">
            <div className="callback-event-head">
              <Badge tone={eventTone[e.status]}>{stateLabel(tr, callback, e.status)}</Badge>
              <span className="mono">{e.type}</span>
              <span className="mono muted callback-url" title={e.url}>
                {e.url}
              </span>
            </div>
            {e.nextAttemptAt && e.status === callback.state.pending && (
              <p className="muted callback-next">
                {tr('screens.order.nextAttempt', { at: formatTime(e.nextAttemptAt) })}
              </p>
            )}
            {e.attempts.length > 0 && (
              <div className="mini-table-wrap">
                <table className="mini-table">
                  <thead>
                    <tr>
                      <th>{tr('screens.order.attemptAt')}</th>
                      <th>{tr('screens.order.attemptBy')}</th>
                      <th className="num">{tr('screens.order.httpStatus')}</th>
                      <th className="num">{tr('screens.order.duration')}</th>
                      <th>{tr('screens.order.answer')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {e.attempts.map((a) => (
                      <tr key={`${a.at}-${a.manual}`}>
                        <td>{formatTime(a.at)}</td>
                        <td>{tr(a.manual ? 'screens.order.manual' : 'screens.order.scheduled')}</td>
                        <td className="num">
                          {a.httpStatus === null ? (
                            <Badge tone="bad">{tr('screens.order.noAnswer')}</Badge>
                          ) : (
                            <Badge tone={a.httpStatus >= 200 && a.httpStatus < 300 ? 'ok' : 'bad'}>
                              {a.httpStatus}
                            </Badge>
                          )}
                        </td>
                        <td className="num">{tr('screens.order.ms', { n: a.durationMs })}</td>
                        <td className="mono attempt-answer" title={a.response}>
                          {attemptAnswer(a.httpStatus, a.response, tr) || '—'}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </div>
        ))
      )}
    </DetailSection>
  );
}

/** The order's ledger lines, each with the account's balance before and after. */
export function PostingTable({ postings }: { postings: Posting[] }) {
  const tr = useT();
  return (
    <DetailSection title={tr('screens.order.postings')}>
      {postings.length === 0 ? (
        <p className="muted">{tr('screens.order.noPostings')}</p>
      ) : (
        <div className="mini-table-wrap">
          <table className="mini-table">
            <thead>
              <tr>
                <th>{tr('screens.order.entry')}</th>
                <th>{tr('screens.order.account')}</th>
                <th className="num">{tr('screens.order.change')}</th>
                <th className="num">{tr('screens.order.before')}</th>
                <th className="num">{tr('screens.order.after')}</th>
              </tr>
            </thead>
            <tbody>
              {postings.map((p) => (
                <tr key={`${p.entryId}-${p.ownerType}-${p.ownerId}-${p.account}`}>
                  <td>
                    <div>{entryKindLabel(tr, p.entryKind)}</div>
                    <div className="muted">{formatTime(p.at)}</div>
                  </td>
                  <td>
                    <div>{named('screens.order.accounts', p.account)}</div>
                    <div className="muted">
                      {named('screens.order.owners', p.ownerType)}
                      {p.ownerType === 'platform' ? '' : ` #${p.ownerId}`}
                    </div>
                  </td>
                  <td className={`num ${p.amount.startsWith('-') ? 'negative' : 'positive'}`}>
                    {p.amount.startsWith('-') ? '' : '+'}
                    {money(p.amount)}
                  </td>
                  <td className="num">{money(p.balanceBefore)}</td>
                  <td className="num">{money(p.balanceAfter)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </DetailSection>
  );
}

/** A payment proof image, fetched with the order's tenancy (a plain <img src> would carry no token). */
export function ProofImage({ id, label }: { id: number; label: string }) {
  const image = useQuery({
    queryKey: ['order-image', id],
    queryFn: ({ signal }) => api(endpoints.merchantOrder.image, { id }, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (!image.data) return <div className="proof-image placeholder" aria-busy="true" />;
  const src = `data:${image.data.mime};base64,${image.data.dataBase64}`;
  return (
    <a className="proof-image" href={src} download={`proof-${id}`} title={label}>
      <img src={src} alt={label} />
    </a>
  );
}
