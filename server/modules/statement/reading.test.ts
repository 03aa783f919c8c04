/**
 * Reading statements off the event loop (issue 25): a read past its deadline is stopped and the pool
 * reads the next one; a full queue answers `busy`; limits stop a read where they are passed (lines,
 * cells, a cell's length, an XLSX's rows as its sheet inflates), not after the whole file is read.
 */
import { describe, expect, it } from 'vitest';
import type { StatementMapping } from '../../../contract/statementMapping.ts';
import { xlsxParts, zipOf } from '../../test/zip.ts';
import { parseStatement } from './parse.ts';
import { maxCellLength, maxStatementColumns, maxStatementRows, readStatement } from './read.ts';
import { maxWaitingStatements } from './workerPool.ts';

const mapping: StatementMapping = {
  headerRow: 1,
  dateColumn: 'Date',
  dateFormat: 'yyyy-MM-dd',
  narrationColumn: 'Narration',
  amountColumn: 'Amount',
};
const head = 'Date,Narration,Amount\n';
/** `n` lines of 50 bytes: 200,000 of them are a 10 MB paste, the largest allowed. */
function lines(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push(
      `2026-11-${String((i % 28) + 1).padStart(2, '0')},UPI/CR/6315${String(i).padStart(8, '0')}/PAYER NAME,${(i % 9000) + 100}.00`,
    );
  return `${out.join('\n')}\n`;
}
const largest = head + lines(maxStatementRows);

/** Counts the event loop's turns while `work` runs: a blocked loop turns no more. */
async function turnsDuring<T>(work: Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  const tick = setInterval(() => turns++, 10);
  try {
    return { result: await work, turns };
  } finally {
    clearInterval(tick);
  }
}

describe('the statement worker', () => {
  it('reads the largest paste while the event loop turns', async () => {
    const started = performance.now();
    const { result, turns } = await turnsDuring(parseStatement({ text: largest }, mapping));
    expect(result.ok && result.lines.length).toBe(maxStatementRows);
    // One turn per 10 ms give or take: a loop held for the read would turn once.
    expect(turns).toBeGreaterThan((performance.now() - started) / 10 / 4);
  });

  it('stops a read past its deadline, and the pool reads the next statement', async () => {
    const { result, turns } = await turnsDuring(
      parseStatement({ text: largest }, mapping, { deadlineMs: 100 }),
    );
    expect(result).toEqual({
      ok: false,
      error: { code: 'tooSlow', key: 'statement.tooSlow', params: { seconds: 1 } },
    });
    expect(turns).toBeGreaterThan(5);
    const next = await parseStatement({ text: head + lines(3) }, mapping);
    expect(next.ok && next.lines.map((l) => l.amount)).toEqual([10_000, 10_100, 10_200]);
  });

  it('answers busy when every worker is taken and the queue is full', async () => {
    // One burst in one turn: the worker answers nothing before every call has seen the queue, so small
    // statements fill it as surely as slow ones (slow ones stopped at a deadline would make the pool start
    // a worker at nice 10 for each, minutes on a loaded machine).
    const results = await Promise.all(
      Array.from({ length: maxWaitingStatements + 6 }, () =>
        parseStatement({ text: head + lines(3) }, mapping),
      ),
    );
    const codes = results.map((r) => (r.ok ? 'ok' : r.error.code));
    expect(codes).toContain('busy');
    expect(codes.filter((c) => c !== 'busy' && c !== 'ok')).toEqual([]);
    expect(codes.filter((c) => c === 'ok').length).toBeGreaterThanOrEqual(maxWaitingStatements);
    expect(results.find((r) => !r.ok && r.error.code === 'busy')).toEqual({
      ok: false,
      error: { code: 'busy', key: 'statement.busy' },
    });
    expect((await parseStatement({ text: head + lines(1) }, mapping)).ok).toBe(true);
  });
});

describe('limits while reading', () => {
  it('a paste past the lines stops there: its tail is never parsed', async () => {
    // Short lines, so that the tail is many times the lines allowed and the whole is under 10 MB. The
    // tail ends in a row too wide to read: parsed, it would be refused for that (the last refusal is the
    // one answered), so the answer says where the reading stopped, whatever the machine's speed.
    const over = `${head}${'2026-11-01,a,1\n'.repeat(maxStatementRows + 1)}`;
    const wide = Array.from({ length: maxStatementColumns + 1 }, (_, i) => `c${i}`).join(',');
    const tail = `${'2026-11-01,a,1\n'.repeat(400_000)}${wide}\n`;
    const refusal = { ok: false, code: 'tooManyRows', params: { max: maxStatementRows } };
    expect(await readStatement({ text: over }, 1)).toEqual(refusal);
    expect(await readStatement({ text: over + tail }, 1)).toEqual(refusal);
    // The tail alone is read, and refused for its wide row.
    expect(await readStatement({ text: `${head}${wide}\n` }, 1)).toMatchObject({
      ok: false,
      code: 'tooWide',
    });
    expect(await parseStatement({ text: over + tail }, mapping)).toEqual({
      ok: false,
      error: { code: 'tooManyRows', key: 'statement.tooManyRows', params: { max: maxStatementRows } },
    });
  });

  it('a row past the columns, a cell past Excel length, a header of too many names', async () => {
    const wide = Array.from({ length: maxStatementColumns + 1 }, (_, i) => `c${i}`);
    expect(await readStatement({ text: `${head}${wide.join(',')}\n` }, 1)).toEqual({
      ok: false,
      code: 'tooWide',
      params: { row: 2, max: maxStatementColumns },
    });
    expect(await readStatement({ text: `${head}${wide.join('\t')}\n` }, 1)).toMatchObject({
      code: 'tooWide',
    });
    // Empty cells past the last column a bank writes are dropped, not refused.
    const trailing = await parseStatement(
      { text: `${head}2026-11-01,a,1.00${','.repeat(maxStatementColumns * 3)}\n` },
      mapping,
    );
    expect(trailing.ok && trailing.lines.length).toBe(1);
    expect(
      await readStatement({ text: `${head}2026-11-01,${'a'.repeat(maxCellLength + 1)},1\n` }, 1),
    ).toEqual({ ok: false, code: 'cellTooLong', params: { row: 2, max: maxCellLength } });
    const spaced = `${wide.join('  ')}\n${wide.join('  ')}\n`;
    expect(await readStatement({ text: spaced }, 1)).toEqual({
      ok: false,
      code: 'tooWide',
      params: { row: 1, max: maxStatementColumns },
    });
  });

  it('an XLSX past the lines stops as its sheet inflates', async () => {
    const rows = [['Date', 'Narration', 'Amount']];
    for (let i = 0; i <= maxStatementRows; i++) rows.push(['2026-11-01', 'a', '1']);
    const r = await readStatement({ file: zipOf(xlsxParts(rows)) }, 1);
    expect(r).toEqual({ ok: false, code: 'tooManyRows', params: { max: maxStatementRows } });
  });

  it('an XLSX with no workbook is unreadable, nothing inflated', async () => {
    const sheetOnly = xlsxParts([['Date']]).filter((p) => p.name.startsWith('xl/worksheets/'));
    expect(await readStatement({ file: zipOf(sheetOnly) }, 1)).toEqual({ ok: false, code: 'unreadable' });
  });
});
