import { Link } from 'wouter';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { TotalsBar } from '../../ui/TotalsBar.tsx';
import { type Answer, countKeys, type Done, type ImportInfo } from './importState.ts';

/** A running import: lines written of lines read, as a bar. */
export function ImportProgress({ row }: { row: ImportInfo | undefined }) {
  const t = useT();
  return (
    <span className="statement-progress" role="status">
      <progress max={row?.lineCount || 1} value={row ? row.processed : undefined} />
      <span>
        {row
          ? t('statement.import.progress', {
              processed: thousands(row.processed),
              lines: thousands(row.lineCount),
            })
          : t('statement.import.reading')}
      </span>
    </span>
  );
}

export function CountsBar({ counts, label }: { counts: Answer['counts']; label: string }) {
  const t = useT();
  return (
    <TotalsBar
      label={t('statement.import.countsOf', { of: label })}
      items={countKeys.map((k) => ({
        id: k,
        label: t(`statement.import.counts.${k}`),
        value: thousands(counts[k]),
        ...(k === 'new' || k === 'exceptions' ? { tone: 'strong' as const } : {}),
      }))}
    />
  );
}

/**
 * The import's result, with the ways on: what its ready lines would pay and the action that posts them
 * (a finance user's money decision: the command `statement.post`, shown only to who may run it), the
 * exceptions it opened, the proposals, its lines.
 */
export function ImportDone({ done, accountId }: { done: Done; accountId: string }) {
  const t = useT();
  const { counts, importId } = done;
  const account = accountId ? `&accountId=${accountId}` : '';
  return (
    <section className="statement-result" aria-label={t('statement.import.result')}>
      <h2 className="statement-heading">{t('statement.import.result')}</h2>
      <CountsBar counts={counts} label={t('statement.import.result')} />
      {importId !== null && done.wouldPay.count > 0 && (
        <div className="statement-would-pay" role="status">
          <p>
            {t('statement.import.wouldPay', {
              n: thousands(done.wouldPay.count),
              sum: thousands(done.wouldPay.sum),
            })}
          </p>
          <CommandButton
            id="statement.post"
            primary
            target={{
              id: importId,
              fileName: done.fileName,
              accountLabel: done.accountLabel,
              wouldPay: done.wouldPay,
            }}
          />
        </div>
      )}
      <p className="statement-links">
        {counts.exceptions > 0 && (
          <Link href={`/receiving/exceptions?${account.slice(1)}`} className="link">
            {t('statement.import.toExceptions', { n: counts.exceptions })}
          </Link>
        )}
        {counts.ready > 0 && (
          <Link href={`/receiving/exceptions?kind=ready${account}`} className="link">
            {t('statement.import.toReady', { n: counts.ready })}
          </Link>
        )}
        {counts.proposed > 0 && (
          <Link href={`/receiving/exceptions?kind=proposed${account}`} className="link">
            {t('statement.import.toProposed', { n: counts.proposed })}
          </Link>
        )}
        {importId !== null && (
          <Link href={`/receiving/statement?importId=${importId}`} className="link">
            {t('statement.import.toLines')}
          </Link>
        )}
      </p>
    </section>
  );
}
