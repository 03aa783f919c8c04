/**
 * The statement worker, run by workerPool.ts in a thread of its pool: reads and interprets one statement
 * and answers it packed for transfer. It tells the pool when it starts (the deadline counts from there)
 * and when it turns to the mapping's UTR pattern (what ran past the deadline is then the pattern).
 */
import { move } from 'piscina';
import { parseOnThisThread } from './parse.ts';
import { packResult, type WorkerTask } from './workerPool.ts';

export default async function readStatementTask({ input, mapping, steps }: WorkerTask) {
  steps.postMessage('reading');
  // A Buffer crosses threads as a plain Uint8Array.
  const own =
    'file' in input
      ? { file: Buffer.from(input.file.buffer, input.file.byteOffset, input.file.byteLength) }
      : input;
  const result = await parseOnThisThread(own, mapping, () => steps.postMessage('utrPattern'));
  steps.close();
  return move(packResult(result));
}
