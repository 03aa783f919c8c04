import { endpoints } from '../../../contract/index.ts';
import { downloadFile } from '../../ui/ExportButton.tsx';

/** Saves a slip's kept file, byte for byte as it was handed out when the slip was written. */
export function saveSlipFile(s: { id: number; fileName: string }): Promise<boolean> {
  return downloadFile(endpoints.withdrawalSlip.download, { id: s.id }, s.fileName);
}
