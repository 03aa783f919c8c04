import { useCallback, useMemo } from 'react';
import { Link, useSearchParams } from 'wouter';
import { lineDirections } from '../../../contract/endpoints/statement.ts';
import { endpoints } from '../../../contract/index.ts';
import { statementLine } from '../../../contract/machines.ts';
import { useT } from '../../lib/useT.ts';
import { type Column, DataTable, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';
import { type Line, lineColumns, lineList, useAccountOptions } from './parts.tsx';
import './statement.css';

/**
 * An account's statement flow: its imported lines by day (then in file order) with the running balance,
 * each line's match state and the order it paid; filtered by account, state, direction, days and words
 * (a UTR, a reference, the narration). A link from an import shows that import's lines.
 */
export default function LinesScreen() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const importId = params.get('importId');
  const accounts = useAccountOptions();
  const columns = useMemo<Column<Line>[]>(
    () => [
      lineColumns.day,
      lineColumns.account,
      // A debit's amount carries its minus: the direction is offered, not shown. The state next to the
      // amount, in view on a narrow screen too.
      { ...lineColumns.direction, hiddenByDefault: true },
      lineColumns.amount,
      lineColumns.status,
      lineColumns.balance,
      lineColumns.utr,
      lineColumns.order,
      lineColumns.narration,
      lineColumns.reference,
      lineColumns.kind,
      lineColumns.reason,
    ],
    [],
  );
  const filters: Filter[] = [
    { id: 'q', label: t('statement.screen.search'), kind: 'text', hint: t('statement.screen.searchHint') },
    { id: 'accountId', label: t('statement.screen.columns.account'), kind: 'select', options: accounts },
    statusFilter(t, statementLine, {
      label: t('statement.screen.columns.status'),
      also: [{ value: 'unmatched', label: t('statement.screen.notMatched') }],
    }),
    {
      id: 'direction',
      label: t('statement.screen.columns.direction'),
      kind: 'select',
      options: lineDirections.map((d) => ({ value: d, label: t(`statement.screen.directions.${d}`) })),
    },
    { id: 'from', label: t('statement.screen.from'), kind: 'date' },
    { id: 'to', label: t('statement.screen.to'), kind: 'date' },
  ];
  const toInput = useCallback(
    (f: Record<string, string>) => ({ ...f, ...(importId ? { importId } : {}) }),
    [importId],
  );
  const title = t('commands.statement.list.title');
  return (
    <Page
      title={title}
      actions={
        <Link href="/receiving/statements" className="button">
          {t('commands.statement.import.title')}
        </Link>
      }
    >
      {importId && (
        <p className="statement-scope" role="status">
          {t('statement.screen.ofImport', { id: importId })}{' '}
          <button
            type="button"
            className="link"
            onClick={() =>
              setParams((p) => {
                const out = new URLSearchParams(p);
                out.delete('importId');
                return out;
              })
            }
          >
            {t('statement.screen.allImports')}
          </button>
        </p>
      )}
      <DataTable
        id="statement-lines"
        label={title}
        endpoint={endpoints.statement.list}
        {...lineList}
        columns={columns}
        filters={filters}
        toInput={toInput}
        detailTitle={(r) => `${r.accountLabel} · ${r.day} · ${t('statement.import.row')} ${r.row}`}
      />
    </Page>
  );
}
