/**
 * Cells of an export written from PostgreSQL's plain text output, by slicing strings: for a million rows
 * `to_char` and `numeric` formatting in the database, or a Date per time in JavaScript, cost more than
 * reading the rows (bench/RESULTS.md, Exports). Each gives what the list's row shape gives
 * (`formatMinor`, `Date#toISOString`); `cells.test.ts` holds them equal over random values.
 */

/** An `int8` of minor units as text (`-123450`) → `-1234.50`, as `formatMinor` writes it. */
export function moneyCell(minor: string): string {
  const sign = minor[0] === '-' ? '-' : '';
  const digits = sign ? minor.slice(1) : minor;
  const padded = digits.length < 3 ? digits.padStart(3, '0') : digits;
  return `${sign}${padded.slice(0, -2)}.${padded.slice(-2)}`;
}

/** `timestamptz` output in the ISO DateStyle (the only one node-postgres reads): date, time, fraction, offset. */
const pgTime =
  /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?$/;

/**
 * A `timestamptz` as text (`2026-11-21 23:44:04.229817+00`) → `2026-11-21T23:44:04.229Z`, the
 * milliseconds cut as a Date cuts them. A session in UTC (the servers' and PGlite's) is sliced; another
 * time zone goes through a Date.
 */
export function isoCell(v: string): string {
  const n = v.length;
  if (v.endsWith('+00') && v[10] === ' ' && (n === 22 || (n >= 24 && n <= 29 && v[19] === '.'))) {
    const ms = n === 22 ? '000' : v.slice(20, Math.min(23, n - 3)).padEnd(3, '0');
    return `${v.slice(0, 10)}T${v.slice(11, 19)}.${ms}Z`;
  }
  const m = pgTime.exec(v);
  if (!m) throw new Error(`unexpected timestamptz text from the database: ${v}`);
  const [, y, mo, d, h, mi, s, frac = '', sign, oh, om = '0', os = '0'] = m;
  const offset = (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60 + Number(os)) * 1000;
  const local = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!, Number(frac.slice(0, 3).padEnd(3, '0')));
  return new Date(local - offset).toISOString();
}
