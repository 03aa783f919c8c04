import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'wouter';
import { endpoints, type Output } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { keyCaps } from '../../shell/keys.ts';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { Page } from '../Page.tsx';
import { ageText } from '../settlement/parts.tsx';
import {
  kindLabel,
  type Line,
  lineColumns,
  lineList,
  type QueueKind,
  queueKinds,
  useAccountOptions,
} from './parts.tsx';
import './statement.css';

type Answer = Output<typeof endpoints.statement.exceptions>;

/** Waiting longer than a day is painted as late. */
const lateSeconds = 86_400;

const ageOf = (l: Line) => (Date.now() - new Date(l.createdAt).getTime()) / 1000;

const c = columnsOf<Line>('statement.queue');

/**
 * The exception queue: statement lines waiting for a person, oldest first, with how long each has
 * waited and why (proposed for one click, an amount that differs from its UTR's order, several
 * candidates, none); the kinds as tabs with their counts. On the focused row: m matches it to an order,
 * a accepts a proposal, d dismisses with a reason (the checked rows at once when several are checked),
 * Shift-R runs matching again.
 */
export default function ExceptionsScreen() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const kindParam = params.get('kind');
  const kind = queueKinds.find((k) => k === kindParam);
  const accounts = useAccountOptions();
  const columns = useMemo<Column<Line>[]>(
    () => [
      c.of('age', ageOf, {
        cell: (r) => {
          const age = ageOf(r);
          return <span className={`num${age >= lateSeconds ? ' statement-late' : ''}`}>{ageText(age)}</span>;
        },
        width: '96px',
      }),
      lineColumns.kind,
      lineColumns.amount,
      lineColumns.utr,
      lineColumns.order,
      lineColumns.day,
      lineColumns.account,
      lineColumns.narration,
      lineColumns.reference,
      // The running balance explains the flow, not a match: offered, not shown.
      { ...lineColumns.balance, hiddenByDefault: true },
    ],
    [],
  );
  const filters: Filter[] = [
    { id: 'accountId', label: t('statement.screen.columns.account'), kind: 'select', options: accounts },
  ];
  const toInput = useCallback((f: Record<string, string>) => ({ ...f, kind }), [kind]);
  const setKind = (next: QueueKind | undefined) =>
    setParams(
      (p) => {
        const out = new URLSearchParams(p);
        if (next) out.set('kind', next);
        else out.delete('kind');
        out.delete('page');
        return out;
      },
      { replace: true },
    );
  const title = t('commands.statement.exceptions.title');
  return (
    <Page title={title}>
      <p className="muted statement-keys">
        {t('statement.queue.keys', {
          match: keyCaps('m').join(''),
          accept: keyCaps('a').join(''),
          dismiss: keyCaps('d').join(''),
          rematch: keyCaps('R').join('-'),
        })}
      </p>
      <DataTable
        id="statement-exceptions"
        label={title}
        endpoint={endpoints.statement.exceptions}
        {...lineList}
        columns={columns}
        filters={filters}
        toInput={toInput}
        detailTitle={(r) => `${r.accountLabel} · ${r.day} · ${thousands(r.amount)}`}
        summary={(answer) => (
          <KindTabs byKind={(answer as Answer | undefined)?.byKind} kind={kind} onKind={setKind} />
        )}
      />
    </Page>
  );
}

/** The kinds of the queue as tabs, each with how many lines wait (over the whole queue). */
function KindTabs({
  byKind,
  kind,
  onKind,
}: {
  byKind: Record<string, number> | undefined;
  kind: QueueKind | undefined;
  onKind: (kind: QueueKind | undefined) => void;
}) {
  const t = useT();
  const all = queueKinds.reduce((sum, k) => sum + (byKind?.[k] ?? 0), 0);
  const tab = (value: QueueKind | undefined, label: string, n: number) => (
    <button
      key={value ?? 'all'}
      type="button"
      aria-pressed={kind === value}
      data-kind={value ?? 'all'}
      onClick={() => onKind(value)}
    >
      {label} <span className="statement-count">{byKind ? thousands(n) : '…'}</span>
    </button>
  );
  return (
    <fieldset className="segmented statement-kinds" aria-label={t('statement.queue.kindsLabel')}>
      {tab(undefined, t('statement.queue.all'), all)}
      {queueKinds.map((k) => tab(k, kindLabel(k), byKind?.[k] ?? 0))}
    </fieldset>
  );
}
