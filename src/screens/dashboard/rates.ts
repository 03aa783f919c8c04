import { thousands } from '../../lib/format.ts';
/** Success rates as the dashboard and the channel list show them. */

/** `123456` ppm → `12.3 %`; nothing finished yet → an em dash. */
export function ratePercent(ppm: number | null): string {
  return ppm === null ? '—' : `${(ppm / 10_000).toFixed(1)} %`;
}

/** 90 % and above is healthy, from 70 % a warning, below that bad; no figure yet is not a problem. */
export function rateTone(ppm: number | null): 'ok' | 'warn' | 'bad' {
  if (ppm === null || ppm >= 900_000) return 'ok';
  return ppm >= 700_000 ? 'warn' : 'bad';
}

/**
 * What a figure's success rate is taken over (the ended orders), and the rate over every order created,
 * under way too: "Orders 16, Paid 4, 50 %" reads wrong without it.
 */
export const rateBases = (f: { finishedCount: number; count: number; successCount: number }) => ({
  ended: thousands(f.finishedCount),
  created: thousands(f.count),
  rate: ratePercent(f.count ? Math.round((f.successCount * 1_000_000) / f.count) : null),
});
