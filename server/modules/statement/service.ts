/**
 * Bank statement import (OPERATIONS.md section 2; docs/STATEMENTS.md "Import"): a statement read through
 * a mapping (parse.ts) is previewed, or saved once per line and matched (matching.ts) in batches, each
 * its own transaction, so that a large file neither holds one transaction for minutes nor leaves the
 * console without progress (`processed` on the import row, followed by its key). The import keeps where
 * the statement came from (an upload, a paste, the bank's feed), who brought it and the file's hash: a
 * person's statement is evidence and pays nothing by itself (its lines wait `ready` for posting,
 * posting.ts).
 */
import { createHash } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { statementLine } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import type { StatementMapping } from '../../../contract/statementMapping.ts';
import type { StatementSource } from '../../../contract/statementSource.ts';
import { type Database, type Db, inTransaction, sqlState } from '../../db/index.ts';
import { receivingAccounts, statementImports, statementLines, statementMappings } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { readParameter } from '../../lib/parameters.ts';
import { lineFields, shownLine } from './lineFields.ts';
import { type Line, type MatchCounts, matchLines, noMatches, openLine } from './matching.ts';
import { readPacked, type Skipped, type StatementLine } from './parse.ts';
import type { StatementFormat } from './read.ts';
import { countDuplicates, duplicatesOf, savedKeys, saveLines, saveMatched } from './saving.ts';
import type { Packed } from './workerPool.ts';

/** Lines matched again per transaction (a rematch). */
export const importBatch = 1000;
/**
 * Lines an import writes and matches per transaction. On PostgreSQL 2,000: each of a batch's thirty-odd
 * statements costs a round trip, a plan and its triggers' setup whatever its size. On PGlite 500 (as the
 * statement worker packs them): it runs each statement on the server's own thread, and a longer one holds
 * every other request longer (docs/PERFORMANCE.md, import without freezing).
 */
const importBatchOf = (engine: Database['engine']) => (engine === 'postgres' ? 2000 : 500);
/** Per-row errors answered at most (a file of wrong columns may have one per line). */
const maxRowErrors = 1000;
const previewLines = 100;

export interface ImportInput {
  accountId: number;
  mappingId?: number;
  mapping?: StatementMapping;
  /** The file's bytes, base64. */
  file?: string;
  fileName?: string;
  text?: string;
  dryRun?: boolean;
  /** Import the readable lines of a file with row errors (the error rows kept on the import). */
  skipRowErrors?: boolean;
  key?: string;
}

export interface ImportCounts extends MatchCounts {
  lines: number;
  new: number;
  duplicates: number;
}

type Money = { count: number; sum: string };

export interface ImportAnswer {
  importId: number | null;
  format: StatementFormat;
  /** The mapping read with (detected when none was given); null for MT940 and camt.053. */
  mapping: StatementMapping | null;
  detected: boolean;
  bank: string | null;
  totals: { credits: Money; debits: Money };
  skipped: Skipped;
  counts: ImportCounts;
  wouldPay: { count: number; sum: string };
  errors: { row: number; column: string; code: string; message: string }[];
  gaps: { row: number; expected: string; found: string }[];
  preview: {
    row: number;
    day: string;
    narration: string;
    reference: string | null;
    direction: 'credit' | 'debit';
    amount: string;
    balance: string | null;
    utr: string | null;
    currency: string | null;
    duplicate: boolean;
  }[];
}

/** The mapping chosen (inline or saved), or none: the layout is then detected from the file. */
async function mappingOf(
  tx: Db,
  input: ImportInput,
): Promise<{ mapping: StatementMapping | null; id: number | null }> {
  if (input.mapping) return { mapping: input.mapping, id: null };
  if (input.mappingId === undefined) return { mapping: null, id: null };
  const [row] = await tx.select().from(statementMappings).where(eq(statementMappings.id, input.mappingId!));
  if (!row) throw new AppError(errno.notFound, null, 'mapping');
  return { mapping: row.mapping, id: row.id };
}

/**
 * Whether a feed's account (an IBAN, or the number as the bank writes it) is the receiving account: its
 * digits hold the account number's (an IBAN holds the domestic number).
 */
export function ofAccount(named: string, accountNumber: string): boolean {
  const number = accountNumber.replace(/\D/g, '');
  return number.length > 0 && named.replace(/\D/g, '').includes(number);
}

/** What the ready credits of an import would pay when posted: their count and sum. */
export async function wouldPayOf(
  tx: Db,
  importIds: readonly number[],
): Promise<Map<number, { count: number; sum: string }>> {
  const out = new Map(importIds.map((id) => [id, { count: 0, sum: formatMinor(0) }]));
  if (!importIds.length) return out;
  const rows = await tx
    .select({
      importId: statementLines.importId,
      count: sql<number>`count(*)::int`,
      sum: sql<string>`coalesce(sum(${statementLines.amount}), 0)::text`,
    })
    .from(statementLines)
    .where(
      and(
        inArray(statementLines.importId, [...importIds]),
        inStates(statementLines.status, [statementLine.state.ready]),
        eq(statementLines.direction, 'credit'),
      ),
    )
    .groupBy(statementLines.importId);
  for (const r of rows) out.set(r.importId, { count: Number(r.count), sum: formatMinor(BigInt(r.sum)) });
  return out;
}

/**
 * Saves the statement's lines in batches, a transaction each, matched as they are saved unless
 * auto-matching is off; the import's counts grow with each batch, and it is done when the last one is.
 */
async function saveBatches(
  deps: Deps,
  userId: number,
  accountId: number,
  importId: number,
  lines: Packed<StatementLine>,
): Promise<ImportCounts> {
  const db = deps.database.db;
  const counts: ImportCounts = { lines: lines.length, new: 0, duplicates: 0, ...noMatches() };
  // Auto-matching off (the `statement_auto_match` parameter): lines are saved, matched later by a rematch.
  const autoMatch = await readParameter(db, 'statement_auto_match');
  try {
    for await (const batch of lines.batches(importBatchOf(deps.database.engine))) {
      // On PGlite a batch holds the one session for tens of milliseconds: taken in a quiet moment, as a
      // posting's lines are, so a look-up arriving meanwhile is not kept behind it.
      await deps.database.giveWay?.();
      const got = await inTransaction(db, async (tx) => {
        const { saved, counts: matched } = autoMatch
          ? await saveMatched(deps, tx, accountId, importId, batch, userId)
          : {
              saved: await saveLines(tx, accountId, importId, batch, deps.clock.now()),
              counts: noMatches(),
            };
        const step = { new: saved, duplicates: batch.length - saved, ...matched };
        await tx
          .update(statementImports)
          .set({
            processed: sql`${statementImports.processed} + ${batch.length}`,
            newCount: sql`${statementImports.newCount} + ${step.new}`,
            duplicateCount: sql`${statementImports.duplicateCount} + ${step.duplicates}`,
            matchedCount: sql`${statementImports.matchedCount} + ${step.matched}`,
            readyCount: sql`${statementImports.readyCount} + ${step.ready}`,
            proposedCount: sql`${statementImports.proposedCount} + ${step.proposed}`,
            exceptionCount: sql`${statementImports.exceptionCount} + ${step.exceptions}`,
          })
          .where(eq(statementImports.id, importId));
        return step;
      });
      for (const k of ['new', 'duplicates', 'matched', 'ready', 'proposed', 'exceptions'] as const)
        counts[k] += got[k];
    }
  } finally {
    // Done also when a batch failed: the lines saved stay (matched), the rest come with a re-import.
    await db
      .update(statementImports)
      .set({ status: 'done', finishedAt: deps.clock.now() })
      .where(eq(statementImports.id, importId));
  }
  return counts;
}

/**
 * Previews (`dryRun`) or imports a statement into a receiving account, as `userId` (the importer). A file
 * that cannot be read answers 422 on `file` (or `text`); a row that cannot be read refuses the whole file
 * (1050, the rows in `data.rows`); both write nothing. A person's statement (`upload`, `paste`) pays
 * nothing: what it would pay waits `ready` (`wouldPay`). Runs its own transactions: call it outside one.
 */
export async function importStatement(
  deps: Deps,
  userId: number,
  input: ImportInput,
  lang: Lang,
  source: StatementSource = input.text !== undefined ? 'paste' : 'upload',
): Promise<ImportAnswer> {
  const db = deps.database.db;
  const [account] = await db
    .select()
    .from(receivingAccounts)
    .where(eq(receivingAccounts.id, input.accountId));
  if (!account) throw new AppError(errno.notFound, null, 'receiving account');
  const { mapping, id: mappingId } = await mappingOf(db, input);
  const bytes =
    input.file !== undefined ? Buffer.from(input.file, 'base64') : Buffer.from(input.text!, 'utf8');
  const parsed = await readPacked(
    input.file !== undefined ? { file: bytes } : { text: input.text! },
    mapping,
  );
  if (!parsed.ok) {
    throw invalidField(
      lang,
      input.file !== undefined ? 'file' : 'text',
      parsed.error.key,
      parsed.error.params,
    );
  }
  // A feed names the account it is the statement of: another account's statement proves nothing here.
  const stranger = parsed.accounts?.filter((named) => !ofAccount(named, account.accountNumber)) ?? [];
  if (stranger.length)
    throw invalidField(lang, input.file !== undefined ? 'file' : 'text', 'statement.feedAccount', {
      accounts: stranger.join(', '),
      account: account.accountNumber,
    });
  const { lines } = parsed;
  const errors = parsed.errors.slice(0, maxRowErrors).map((e) => ({
    row: e.row,
    column: e.column,
    code: e.code,
    message: t(lang, e.key, e.params),
  }));
  const warnings = await parsed.warnings.all();
  const gaps = warnings.map((g) => ({
    row: g.row,
    expected: formatMinor(g.expected),
    found: formatMinor(g.found),
  }));
  const head = lines.slice(0, previewLines);
  const headDup = duplicatesOf(
    head,
    await savedKeys(
      db,
      account.id,
      head.map((l) => l.dedupeKey),
    ),
  );
  const preview = head.map((l, i) => ({ ...shownLine(lineFields(l)), duplicate: headDup[i]! }));
  const money = (m: { count: number; sum: number }) => ({ count: m.count, sum: formatMinor(m.sum) });
  const read = {
    format: parsed.format,
    mapping: parsed.mapping,
    detected: parsed.detected,
    bank: parsed.bank,
    totals: { credits: money(parsed.totals.credits), debits: money(parsed.totals.debits) },
    skipped: parsed.skipped,
  };

  if (input.dryRun) {
    const duplicates = await countDuplicates(db, account.id, lines);
    return {
      importId: null,
      ...read,
      counts: { lines: lines.length, new: lines.length - duplicates, duplicates, ...noMatches() },
      wouldPay: { count: 0, sum: formatMinor(0) },
      errors,
      gaps,
      preview,
    };
  }
  // Rows that cannot be read refuse the file unless the importer chose to import the rest.
  if (parsed.errors.length && !input.skipRowErrors)
    throw new AppError(errno.statementRows, { rows: errors, count: parsed.errors.length });

  const format = parsed.format;
  const fileName = input.fileName || (format === 'text' ? 'pasted.txt' : `statement.${format}`);
  const started = await inTransaction(db, async (tx) => {
    try {
      const [row] = await tx
        .insert(statementImports)
        .values({
          accountId: account.id,
          key: input.key ?? null,
          fileName,
          format,
          source,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          size: bytes.length,
          content: bytes,
          mapping: parsed.mapping ?? {},
          mappingId,
          detected: parsed.detected,
          bank: parsed.bank,
          totals: parsed.totals,
          skipped: parsed.skipped,
          errorRows: parsed.errors.slice(0, maxRowErrors),
          lineCount: lines.length,
          gaps: warnings,
          createdBy: userId,
          createdAt: deps.clock.now(),
        })
        .returning({ id: statementImports.id });
      return row!;
    } catch (err) {
      if (sqlState(err) === '23505') throw new AppError(errno.conflict, null, 'import key in use');
      throw err;
    }
  });
  const importId = started.id;
  const counts = await saveBatches(deps, userId, account.id, importId, lines);
  const wouldPay = (await wouldPayOf(db, [importId])).get(importId)!;
  return { importId, ...read, counts, wouldPay, errors, gaps, preview };
}

/**
 * Runs the open lines (new, proposed, exception) of one account, or all, through matching again, in
 * batches: a payer's UTR submitted after the import, or an order created after it, now counts.
 */
export async function rematch(deps: Deps, userId: number, accountId?: number): Promise<MatchCounts> {
  const db = deps.database.db;
  const counts = noMatches();
  let after = 0;
  for (;;) {
    const step = await inTransaction(db, async (tx) => {
      const batch: Line[] = await tx
        .select()
        .from(statementLines)
        .where(
          and(
            openLine,
            sql`${statementLines.id} > ${after}`,
            accountId === undefined ? undefined : eq(statementLines.accountId, accountId),
          ),
        )
        .orderBy(statementLines.id)
        .limit(importBatch)
        .for('update', { skipLocked: true });
      return { last: batch.at(-1)?.id, counts: await matchLines(deps, tx, batch, userId) };
    });
    for (const k of ['matched', 'ready', 'proposed', 'exceptions'] as const) counts[k] += step.counts[k];
    if (step.last === undefined) return counts;
    after = step.last;
  }
}

/**
 * A payer named `utr` on the pay page of an order on `accountId`: the account's open credit lines
 * carrying it are matched again at once (a feed's line imported before the payer spoke pays the order now,
 * a person's line becomes ready to post, not at the next rematch). Feed payments are posted for the user
 * who imported each line. Answers how many lines it matched or readied.
 */
export async function matchPayerUtr(deps: Deps, accountId: number, utr: string): Promise<number> {
  // Auto-matching off: the lines wait for a rematch by hand, whoever names their UTR.
  if (!(await readParameter(deps.database.db, 'statement_auto_match'))) return 0;
  return inTransaction(deps.database.db, async (tx) => {
    const lines = await tx
      .select({ line: statementLines, importer: statementImports.createdBy })
      .from(statementLines)
      .innerJoin(statementImports, eq(statementImports.id, statementLines.importId))
      .where(
        and(
          openLine,
          eq(statementLines.accountId, accountId),
          eq(statementLines.utr, normalUtr(utr)),
          eq(statementLines.direction, 'credit'),
        ),
      )
      .orderBy(statementLines.id)
      .for('update', { of: statementLines, skipLocked: true });
    if (!lines.length) return 0;
    const counts = await matchLines(
      deps,
      tx,
      lines.map((l) => l.line),
      lines[0]!.importer,
    );
    return counts.matched + counts.ready;
  });
}
