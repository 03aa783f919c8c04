import { formatTotal } from '../lib/format.ts';
import { useT } from '../lib/useT.ts';
import { pageSizes } from './listQuery.ts';

interface FooterProps {
  count: number;
  capped: boolean | undefined;
  /** Shows the live mark while the list re-reads itself. */
  live: boolean;
  pageSize: number;
  setPageSize: (size: string) => void;
  paging: { goNext: () => void; goPrevious: () => void; hasNext: boolean; hasPrevious: boolean };
}

/** Under the rows: how many there are (and whether the list is live), the page size, Previous and Next. */
export function TableFooter({ count, capped, live, pageSize, setPageSize, paging }: FooterProps) {
  const t = useT();
  return (
    <footer className="datatable-footer no-print">
      <span className="dt-total">
        {t('table.total', { n: formatTotal(count, capped) })}
        {live && (
          <span className="dt-live" title={t('lists.live.title')}>
            {t('lists.live.on')}
          </span>
        )}
      </span>
      <label className="dt-size">
        <span>{t('table.pageSize')}</span>
        <select value={pageSize} onChange={(e) => setPageSize(e.target.value)}>
          {pageSizes.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <button type="button" className="button" disabled={!paging.hasPrevious} onClick={paging.goPrevious}>
        {t('table.previous')}
      </button>
      <button type="button" className="button" disabled={!paging.hasNext} onClick={paging.goNext}>
        {t('table.next')}
      </button>
    </footer>
  );
}
