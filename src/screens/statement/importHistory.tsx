import { formatTime, thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import type { Column } from '../../ui/DataTable.tsx';
import { columnsOf, hidden } from '../columns.tsx';
import { saveImportFile } from './download.ts';
import type { Import } from './parts.tsx';

const c = columnsOf<Import>('statement.import.columns');
const counts = columnsOf<Import>('statement.import.counts');

/** The imports so far, under the import form: each with its counts and its kept file. */
export const historyColumns: Column<Import>[] = [
  c.time('createdAt', '160px', { cell: (r) => <span className="dt-time">{formatTime(r.createdAt)}</span> }),
  c.of('account', (r) => r.accountLabel, {
    header: 'statement.screen.columns.account',
    width: 'minmax(150px, 1fr)',
    sortable: false,
  }),
  c.text('fileName', 'minmax(160px, 1.2fr)', { cell: (r) => <FileLink row={r} />, sortable: false }),
  // A saved mapping by name; else how the file was read (detected, a bank's feed format, an inline mapping).
  c.of(
    'mappingName',
    (r) =>
      r.mappingName ??
      (r.format === 'mt940' || r.format === 'camt053'
        ? t(`statement.import.formats.${r.format}`)
        : r.detected
          ? t('statement.import.detectedShort')
          : null),
    { width: '130px', sortable: false },
  ),
  counts.of('lines', (r) => r.lineCount, {
    cell: (r) =>
      r.status === 'running'
        ? `${thousands(r.processed)} / ${thousands(r.lineCount)}`
        : thousands(r.lineCount),
    width: '110px',
  }),
  c.text('source', '120px', { cell: (r) => t(`statement.source.${r.source}`), ...hidden }),
  c.of('wouldPay', (r) => Number(r.wouldPay.sum), {
    cell: (r) => (r.wouldPay.count ? `${thousands(r.wouldPay.count)} · ${thousands(r.wouldPay.sum)}` : '—'),
    width: '140px',
    sortable: false,
  }),
  ...(['new', 'duplicates', 'matched', 'exceptions'] as const).map((k) =>
    counts.of(k, (r) => r.counts[k], { cell: (r) => thousands(r.counts[k]), width: '96px' }),
  ),
  c.of('gaps', (r) => r.gaps.length, { width: '80px', ...hidden }),
  c.text('createdBy', '110px', hidden),
];

/** The kept file, downloaded byte for byte (the row's `d` key does the same). */
function FileLink({ row }: { row: Import }) {
  return (
    <button type="button" className="link" tabIndex={-1} onClick={() => void saveImportFile(row)}>
      {row.fileName}
    </button>
  );
}
