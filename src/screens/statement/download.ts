import { endpoints } from '../../../contract/index.ts';
import { downloadFile } from '../../ui/ExportButton.tsx';

/** Saves an import's kept file, byte for byte as the operator gave it (the audit copy). */
export function saveImportFile(row: { id: number; fileName: string }): Promise<boolean> {
  return downloadFile(endpoints.statement.file, { id: row.id }, row.fileName);
}
