/**
 * One statement import per user at a time in this process: a second one while the first is read and
 * saved is refused (`statementImportRunning`), so that one person cannot fill the statement workers'
 * queue (workerPool.ts) or hold several large files in memory at once.
 */
import { errno } from '../../../contract/errno.ts';
import { AppError } from '../../http/errors.ts';

const importing = new Set<number>();

/** Runs `importStatement` holding the user's one slot; refuses while the user holds it already. */
export async function withImportSlot<T>(userId: number, importStatement: () => Promise<T>): Promise<T> {
  if (importing.has(userId)) throw new AppError(errno.statementImportRunning, null, `user ${userId}`);
  importing.add(userId);
  try {
    return await importStatement();
  } finally {
    importing.delete(userId);
  }
}
