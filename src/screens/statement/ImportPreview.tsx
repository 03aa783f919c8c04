import type { ReactNode } from 'react';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { CountsBar } from './ImportResult.tsx';
import type { Answer } from './importState.ts';

/**
 * The preview: how the file was read (the detected mapping, to take into the editor), the whole file's
 * totals, counts, the rows that cannot be read (and the choice to import the rest), the rows that are no
 * transaction, balance gaps, then the first lines as read.
 */
export function Preview({
  answer,
  stale,
  onUseMapping,
  bankName,
  skipRowErrors,
  onSkipRowErrors,
}: {
  answer: Answer;
  stale: boolean;
  onUseMapping: (mapping: NonNullable<Answer['mapping']>) => void;
  /** A preset's bank name by its id (detection answers the id). */
  bankName: (id: string) => string;
  skipRowErrors: boolean;
  onSkipRowErrors: (skip: boolean) => void;
}) {
  const t = useT();
  return (
    <section
      className={`statement-preview${stale ? ' stale' : ''}`}
      aria-label={t('statement.import.previewTitle')}
    >
      <h2 className="statement-heading">{t('statement.import.previewTitle')}</h2>
      {stale && (
        <p className="notice" role="status">
          {t('statement.import.stale')}
        </p>
      )}
      <HowRead answer={answer} bankName={bankName} onUseMapping={onUseMapping} />
      <CountsBar counts={answer.counts} label={t('statement.import.previewTitle')} />
      {answer.importId === null && <p className="muted">{t('statement.import.matchOnImport')}</p>}
      {answer.errors.length > 0 && (
        <>
          <MiniTable
            title={t('statement.import.rowErrors', { n: answer.errors.length })}
            tone="bad"
            head={[t('statement.import.row'), t('statement.import.column'), t('statement.import.message')]}
            rows={answer.errors.map((e) => [String(e.row), e.column, e.message])}
            numeric={[0]}
          />
          {answer.counts.lines > 0 && (
            <label className="check statement-skip-errors">
              <input
                type="checkbox"
                checked={skipRowErrors}
                onChange={(e) => onSkipRowErrors(e.target.checked)}
              />
              {t('statement.import.skipRowErrors', { n: answer.errors.length })}
            </label>
          )}
        </>
      )}
      {answer.skipped.count > 0 && (
        <details className="statement-skipped">
          <summary>{t('statement.import.skipped', { count: thousands(answer.skipped.count) })}</summary>
          {answer.skipped.rows.length > 0 && (
            <MiniTable
              title={t('statement.import.skippedHint')}
              head={[t('statement.import.row'), t('statement.import.kind'), t('statement.import.rowText')]}
              rows={answer.skipped.rows.map((r) => [
                String(r.row),
                t(`statement.import.skipKinds.${r.kind}`),
                r.text,
              ])}
              numeric={[0]}
            />
          )}
        </details>
      )}
      {answer.gaps.length > 0 && (
        <MiniTable
          title={t('statement.import.gaps', { n: answer.gaps.length })}
          tone="warn"
          head={[t('statement.import.row'), t('statement.import.expected'), t('statement.import.found')]}
          rows={answer.gaps.map((g) => [String(g.row), thousands(g.expected), thousands(g.found)])}
          numeric={[0, 1, 2]}
          note={t('statement.import.gapsHint')}
        />
      )}
      {answer.preview.length > 0 && <FirstLines answer={answer} />}
    </section>
  );
}

/** How the file was read (the detected mapping, to take into the editor) and the whole file's totals. */
function HowRead({
  answer,
  bankName,
  onUseMapping,
}: {
  answer: Answer;
  bankName: (id: string) => string;
  onUseMapping: (mapping: NonNullable<Answer['mapping']>) => void;
}) {
  const t = useT();
  const format = t(`statement.import.formats.${answer.format}`);
  const { credits, debits } = answer.totals;
  return (
    <>
      <p className="statement-read" data-testid="statement-read">
        {answer.mapping ? (
          <>
            {t('statement.import.detected', {
              format,
              bank: answer.bank ? t('statement.import.detectedBank', { bank: bankName(answer.bank) }) : '',
              row: answer.mapping.headerRow ?? '',
              dateFormat: answer.mapping.dateFormat ?? '',
            })}{' '}
            {answer.detected && (
              <button type="button" className="link" onClick={() => onUseMapping(answer.mapping!)}>
                {t('statement.import.useDetected')}
              </button>
            )}
          </>
        ) : (
          t('statement.import.feedRead', { format })
        )}
      </p>
      <dl className="statement-totals" aria-label={t('statement.import.totals')}>
        <div>
          <dt>{t('statement.import.credits')}</dt>
          <dd data-testid="totals-credits">
            {t('statement.import.totalOf', { count: thousands(credits.count), sum: thousands(credits.sum) })}
          </dd>
        </div>
        <div>
          <dt>{t('statement.import.debits')}</dt>
          <dd data-testid="totals-debits">
            {t('statement.import.totalOf', { count: thousands(debits.count), sum: thousands(debits.sum) })}
          </dd>
        </div>
        <p className="muted">{t('statement.import.totalsHint')}</p>
      </dl>
    </>
  );
}

/** The first lines as read, duplicates dimmed. */
function FirstLines({ answer }: { answer: Answer }) {
  const t = useT();
  // Only a feed's file states a currency: a column of dashes otherwise.
  const withCurrency = answer.preview.some((l) => l.currency !== null);
  return (
    <MiniTable
      title={t('statement.import.firstLines', { n: answer.preview.length, lines: answer.counts.lines })}
      head={[
        t('statement.import.row'),
        t('statement.screen.columns.day'),
        t('statement.screen.columns.direction'),
        t('statement.screen.columns.amount'),
        ...(withCurrency ? [t('statement.import.currency')] : []),
        t('statement.screen.columns.balance'),
        t('statement.screen.columns.utr'),
        t('statement.screen.columns.reference'),
        t('statement.screen.columns.narration'),
      ]}
      rows={answer.preview.map((l) => [
        String(l.row),
        l.day,
        <span key="d">
          {t(`statement.screen.directions.${l.direction}`)}
          {l.duplicate && <span className="muted"> · {t('statement.import.duplicate')}</span>}
        </span>,
        thousands(l.amount),
        ...(withCurrency ? [l.currency ?? '—'] : []),
        l.balance === null ? '—' : thousands(l.balance),
        l.utr ?? '—',
        l.reference ?? '—',
        l.narration,
      ])}
      numeric={[0, 3, withCurrency ? 5 : 4]}
      dim={answer.preview.map((l) => l.duplicate)}
    />
  );
}

function MiniTable({
  title,
  head,
  rows,
  numeric = [],
  tone,
  note,
  dim,
}: {
  title: string;
  head: string[];
  rows: ReactNode[][];
  numeric?: number[];
  tone?: 'bad' | 'warn';
  note?: string;
  dim?: boolean[];
}) {
  return (
    <div className={`statement-table${tone ? ` ${tone}` : ''}`}>
      <h3>{title}</h3>
      {note && <p className="muted">{note}</p>}
      <div className="bulk-table-wrap">
        <table className="bulk-table">
          <thead>
            <tr>
              {head.map((h, i) => (
                <th key={h} className={numeric.includes(i) ? 'num' : undefined}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((cells, r) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the rows of one answer, never reordered
              <tr key={r} className={dim?.[r] ? 'skipped' : undefined}>
                {cells.map((c, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a row's cells by position
                  <td key={i} className={numeric.includes(i) ? 'num' : undefined}>
                    {c}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
