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
