import { formatTime, thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import type { Column } from '../../ui/DataTable.tsx';
import { saveImportFile } from './download.ts';
import type { Import } from './parts.tsx';

/** The imports so far, under the import form: each with its counts and its kept file. */
export const historyColumns: Column<Import>[] = [
  {
    id: 'createdAt',
    header: 'statement.import.columns.createdAt',
    value: (r) => r.createdAt,
    cell: (r) => <span className="dt-time">{formatTime(r.createdAt)}</span>,
    width: '160px',
    sortable: true,
  },
  {
    id: 'account',
    header: 'statement.screen.columns.account',
    value: (r) => r.accountLabel,
    width: 'minmax(150px, 1fr)',
  },
  {
    id: 'fileName',
    header: 'statement.import.columns.fileName',
    value: (r) => r.fileName,
    cell: (r) => <FileLink row={r} />,
    width: 'minmax(160px, 1.2fr)',
  },
  {
    id: 'mappingName',
    header: 'statement.import.columns.mappingName',
    // A saved mapping by name; else how the file was read (detected, a bank's feed format, an inline mapping).
    value: (r) =>
      r.mappingName ??
      (r.format === 'mt940' || r.format === 'camt053'
        ? t(`statement.import.formats.${r.format}`)
        : r.detected
          ? t('statement.import.detectedShort')
          : null),
    width: '130px',
  },
  {
    id: 'lines',
    header: 'statement.import.counts.lines',
    value: (r) => r.lineCount,
    cell: (r) =>
      r.status === 'running'
        ? `${thousands(r.processed)} / ${thousands(r.lineCount)}`
        : thousands(r.lineCount),
    width: '110px',
    sortable: true,
  },
  {
    id: 'source',
    header: 'statement.import.columns.source',
    value: (r) => r.source,
    cell: (r) => t(`statement.source.${r.source}`),
    width: '120px',
    hiddenByDefault: true,
  },
  {
    id: 'wouldPay',
    header: 'statement.import.columns.wouldPay',
    value: (r) => Number(r.wouldPay.sum),
    cell: (r) => (r.wouldPay.count ? `${thousands(r.wouldPay.count)} · ${thousands(r.wouldPay.sum)}` : '—'),
    width: '140px',
  },
  ...(['new', 'duplicates', 'matched', 'exceptions'] as const).map(
    (k): Column<Import> => ({
      id: k,
      header: `statement.import.counts.${k}`,
      value: (r) => r.counts[k],
      cell: (r) => thousands(r.counts[k]),
      width: '96px',
      sortable: true,
    }),
  ),
  {
    id: 'gaps',
    header: 'statement.import.columns.gaps',
    value: (r) => r.gaps.length,
    width: '80px',
    hiddenByDefault: true,
  },
  {
    id: 'createdBy',
    header: 'statement.import.columns.createdBy',
    value: (r) => r.createdBy,
    width: '110px',
    hiddenByDefault: true,
  },
];

/** The kept file, downloaded byte for byte (the row's `d` key does the same). */
function FileLink({ row }: { row: Import }) {
  return (
    <button type="button" className="link" tabIndex={-1} onClick={() => void saveImportFile(row)}>
      {row.fileName}
    </button>
  );
}
