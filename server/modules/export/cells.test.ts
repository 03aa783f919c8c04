/**
 * The export's hand-written pieces against the references they replace, over random values: money and
 * times sliced from the database's text against `formatMinor` and a Date, and the CSV record writer
 * against csv-stringify (byte for byte) and csv-parse (reads back what was written).
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMinor } from '../../../contract/money.ts';
import { isoCell, moneyCell } from './cells.ts';
import { csvRecord, guardFormula } from './stream.ts';

/** A time as PostgreSQL's ISO DateStyle writes a `timestamptz` at `offsetMinutes` east of UTC. */
function pgText(ms: number, micros: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString();
  const frac = `${String(ms % 1000).padStart(3, '0')}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = abs % 60 ? `:${String(abs % 60).padStart(2, '0')}` : '';
  return `${local.slice(0, 10)} ${local.slice(11, 19)}${frac ? `.${frac}` : ''}${offsetMinutes < 0 ? '-' : '+'}${hh}${mm}`;
}

describe('cells from the database text', () => {
  it('writes money as formatMinor does', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (minor) => {
        expect(moneyCell(String(minor))).toBe(formatMinor(minor));
      }),
      { numRuns: 2_000 },
    );
    for (const n of [0n, 1n, 9n, 10n, 99n, 100n, 101n, -1n, -100n])
      expect(moneyCell(String(n))).toBe(formatMinor(n));
  });

  it('writes times as Date#toISOString does, microseconds cut, in UTC or any offset', () => {
    const year2000 = 946_684_800_000;
    const year2100 = 4_102_444_800_000;
    fc.assert(
      fc.property(
        fc.integer({ min: year2000, max: year2100 }),
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom(0, 0, 0, 330, -180, 345, 60, -600),
        (ms, micros, offset) => {
          expect(isoCell(pgText(ms, micros, offset))).toBe(new Date(ms).toISOString());
        },
      ),
      { numRuns: 5_000 },
    );
    expect(isoCell('2026-11-21 23:44:04+00')).toBe('2026-11-21T23:44:04.000Z');
    expect(isoCell('2026-11-21 23:44:04.2+00')).toBe('2026-11-21T23:44:04.200Z');
    expect(isoCell('2026-11-21 23:44:04.229817+00')).toBe('2026-11-21T23:44:04.229Z');
    expect(isoCell('2026-11-22 05:14:04.5+05:30')).toBe('2026-11-21T23:44:04.500Z');
    expect(() => isoCell('11/21/2026 23:44:04.229 UTC')).toThrow(/timestamptz/);
  });
});

describe('CSV records', () => {
  /** Text with what CSV must escape (commas, quotes, CR, LF), formula starts, Chinese and emoji. */
  const cell = fc.option(fc.stringMatching(/^[a-z0-9 ,"\r\n\t=+\-@'中文😀]{0,12}$/u), { nil: null, freq: 5 });

  const records = fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 });

  it('are read back by csv-parse as written (RFC 4180: commas, quotes and line breaks quoted)', () => {
    fc.assert(
      fc.property(records, (rows) => {
        const back = parse(rows.map(csvRecord).join(''), { relax_column_count: true }) as string[][];
        expect(back).toEqual(rows.map((r) => r.map((v) => v ?? '')));
      }),
      { numRuns: 3_000 },
    );
  });

  it('are byte for byte what csv-stringify writes, but for a lone CR or LF, which it leaves unquoted', () => {
    fc.assert(
      fc.property(records, (rows) => {
        fc.pre(rows.every((r) => r.every((v) => !v || !/[\r\n]/.test(v.replaceAll('\r\n', '')))));
        expect(rows.map(csvRecord).join('')).toBe(stringify(rows, { record_delimiter: 'windows' }));
      }),
      { numRuns: 3_000 },
    );
    // csv-stringify 6.9 writes `a\nb,x`: a reader sees two records. Ours stays one.
    expect(stringify([['a\nb', 'x']], { record_delimiter: 'windows' })).toBe('a\nb,x\r\n');
    expect(csvRecord(['a\nb', 'x'])).toBe('"a\nb",x\r\n');
    expect(csvRecord(['a\rb', null, ''])).toBe('"a\rb",,\r\n');
  });

  it('defuse formulas in free text', () => {
    for (const v of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) expect(guardFormula(v)).toBe(`'${v}`);
    for (const v of ['1-1', 'a=b', '', '中文']) expect(guardFormula(v)).toBe(v);
    expect(csvRecord([guardFormula('=HYPERLINK("http://x","y")'), null, ''])).toBe(
      `"'=HYPERLINK(""http://x"",""y"")",,\r\n`,
    );
  });
});
