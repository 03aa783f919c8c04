import { atom } from 'nanostores';

/**
 * The two clocks of the console (docs/DECISIONS.md, issue 28): times and periods are the person's own
 * (the browser's zone, as the lists' periods are), and business days (reports, settlements, T+N, D0) are
 * the business time zone's. The top bar names the first, and the second where they differ.
 */

/** The business time zone: from the session (`auth.info`), then as reports answer it. */
export const $businessTimeZone = atom<string>(Intl.DateTimeFormat().resolvedOptions().timeZone);

/** The person's zone: the browser's. */
export const viewerZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A zone's short name now, as India writes it ("IST", "GMT+1"). */
export function zoneShort(zone: string, at = new Date()): string {
  try {
    const parts = new Intl.DateTimeFormat('en-IN', { timeZone: zone, timeZoneName: 'short' }).formatToParts(
      at,
    );
    return parts.find((p) => p.type === 'timeZoneName')?.value ?? zone;
  } catch {
    return zone;
  }
}

/** Whether two zones read the same clock now (Asia/Calcutta and Asia/Kolkata do). */
export function sameClock(a: string, b: string, at = new Date()): boolean {
  const hour = (zone: string) => {
    try {
      return new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        hour: '2-digit',
        minute: '2-digit',
        day: '2-digit',
      }).format(at);
    } catch {
      return zone;
    }
  };
  return hour(a) === hour(b);
}
