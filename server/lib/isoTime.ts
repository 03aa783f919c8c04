/**
 * `date.toISOString()`, about ten times faster for the instants orders carry. A list page writes some 80
 * of them, and the built-in costs about 0.45 µs each: a fifth of the list's own work per call. The day's
 * part comes from the built-in and is kept for the next call (a page's times fall on a day or two); the
 * time of day is integer arithmetic. Instants before 1970 or after 9999 (and invalid dates, which throw)
 * go to the built-in.
 */
const twoDigits = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const dayMs = 86_400_000;
const lastInstant = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
let keptDay = Number.NaN;
let keptDayText = '';

export const isoOf = (d: Date): string => isoOfMs(d.getTime());

/** `isoOf` of an instant given as epoch milliseconds (as the order list reads its times). */
export function isoOfMs(ms: number): string {
  if (!(ms >= 0 && ms <= lastInstant)) return new Date(ms).toISOString();
  const day = Math.floor(ms / dayMs);
  if (day !== keptDay) {
    keptDayText = new Date(ms).toISOString().slice(0, 11); // "YYYY-MM-DDT"
    keptDay = day;
  }
  let rest = ms - day * dayMs;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  const hour = (rest - minute) / 60;
  return `${keptDayText}${twoDigits[hour]}:${twoDigits[minute]}:${twoDigits[second]}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
