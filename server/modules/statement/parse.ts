/**
 * A bank statement read through a mapping (contract/statementMapping.ts; docs/STATEMENTS.md): lines
 * with a day, a direction, an exact amount in minor units, the balance, the UTR and the key that makes
 * re-importing idempotent; errors per row and per file; running-balance gaps as warnings. No database,
 * no clock: `parseOnThisThread` is pure and runs in the statement worker, `parseStatement` hands it to
 * that worker (workerPool.ts). The import endpoint saves what this answers.
 */
import type { StatementMapping } from '../../../contract/statementMapping.ts';
import { anyBankUtrPattern } from './detect.ts';
import { type FeedFormat, feedLines, feedText } from './feedLines.ts';
import { finishLines, looksLikeUtr, totalsOf, utrsByPattern } from './lineKeys.ts';
import { fileError, type ParseResult } from './parsed.ts';
import { maxStatementRows, readStatement, tooLarge } from './read.ts';
import { parseSheet } from './sheetLines.ts';
import { type PackedResult, runInWorker, statementDeadlineMs } from './workerPool.ts';

export { parseAmount, parseDate } from './cells.ts';
export { dedupeKey, lineContent, looksLikeUtr, totalsOf, utrsByPattern } from './lineKeys.ts';
export type * from './parsed.ts';
export { maxNarration, maxSkippedListed } from './parsed.ts';
export { maxStatementBytes, maxStatementRows, maxXlsxEntries, maxXlsxUnpacked } from './read.ts';

export interface ParseOptions {
  /** How long reading may run once a worker has taken it (default `statementDeadlineMs`). */
  deadlineMs?: number;
}

/**
 * Reads and interprets a statement in the statement worker, off the server's event loop; the mapping
 * has passed `statementMapping`.
 */
export async function parseStatement(
  input: { file: Buffer } | { text: string },
  mapping: StatementMapping | null,
  options: ParseOptions = {},
): Promise<ParseResult> {
  const read = await readPacked(input, mapping, options);
  if (!read.ok) return read;
  return {
    ...read,
    lines: await read.lines.all(),
    errors: await read.errors.all(),
    warnings: await read.warnings.all(),
  };
}

/**
 * `parseStatement` with its lists left packed, unpacked as they are walked: an import of 200,000 lines
 * never holds them all on the server's thread at once.
 */
export async function readPacked(
  input: { file: Buffer } | { text: string },
  mapping: StatementMapping | null,
  options: ParseOptions = {},
): Promise<PackedResult> {
  // Refused here, by its length: a worker (cold, on a loaded machine) is not handed 50 MB to refuse.
  const large = tooLarge(input);
  if (large) return fileError('tooLarge', large);
  const deadlineMs = options.deadlineMs ?? statementDeadlineMs;
  const outcome = await runInWorker({ input, mapping }, deadlineMs);
  if ('stopped' in outcome)
    return outcome.stopped === 'busy'
      ? fileError('busy')
      : fileError(outcome.stopped, { seconds: Math.ceil(deadlineMs / 1000) });
  return outcome.result;
}

/**
 * `parseStatement`'s work, on the calling thread: the statement worker's. A feed (MT940, camt.053) reads
 * its own fields; anything else is a sheet read through the mapping (sheetLines.ts).
 */
export async function parseOnThisThread(
  input: { file: Buffer } | { text: string },
  given: StatementMapping | null,
  onUtrPattern: () => void,
): Promise<ParseResult> {
  const feed = feedText(input);
  if (feed) return parseFeed(feed.format, feed.text, onUtrPattern);
  const read = await readStatement(input, given?.headerRow ?? null);
  if (!read.ok) return fileError(read.code, 'params' in read ? read.params : undefined);
  return parseSheet(read, given, onUtrPattern);
}

/**
 * A feed (MT940, camt.053): its own fields, no mapping (one given is not read). The UTR: the pattern for
 * any bank on the narration, else the first of the entry's references that reads as a UTR.
 */
function parseFeed(format: FeedFormat, text: string, onUtrPattern: () => void): ParseResult {
  const read = feedLines(format, text);
  if (!read.ok)
    return read.refusal === 'tooManyRows'
      ? fileError('tooManyRows', { max: maxStatementRows })
      : fileError('unreadable', { format: feedNames[format], detail: read.detail ?? '' }, 'feedUnreadable');
  const { lines } = read;
  if (!lines.length && !read.errors.length) return fileError('empty');
  onUtrPattern();
  const caught = utrsByPattern(
    anyBankUtrPattern,
    lines.map((l) => l.narration),
  );
  const order = finishLines(
    lines,
    caught,
    (_, i) => read.references[i]!.find((r) => r !== null && looksLikeUtr(r)) ?? null,
  );
  return {
    ok: true,
    format,
    mapping: null,
    detected: false,
    bank: null,
    lines,
    errors: read.errors,
    warnings: read.warnings,
    order,
    skipped: { count: 0, rows: [] },
    totals: totalsOf(lines),
    accounts: read.accounts,
  };
}

const feedNames: Record<FeedFormat, string> = { mt940: 'MT940', camt053: 'camt.053' };
