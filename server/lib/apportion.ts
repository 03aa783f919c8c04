/**
 * Splits `total` minor units in proportion to `weights` exactly (the largest remainder method): each part
 * is its floor share, and what the floors leave goes one unit each to the largest remainders (the first of
 * equal ones), so the parts always sum to `total`. Exact for any safe integers (BigInt inside).
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  if (!Number.isSafeInteger(total) || total < 0) throw new Error(`apportion: bad total ${total}`);
  if (weights.some((w) => !Number.isSafeInteger(w) || w < 0)) throw new Error('apportion: bad weight');
  const sum = weights.reduce((a, b) => a + BigInt(b), 0n);
  if (sum === 0n) {
    if (total) throw new Error('apportion: nothing to split by');
    return weights.map(() => 0);
  }
  const t = BigInt(total);
  const parts = weights.map((w) => (t * BigInt(w)) / sum);
  const rests = weights.map((w, i) => ({ i, rest: (t * BigInt(w)) % sum }));
  let left = Number(t - parts.reduce((a, b) => a + b, 0n));
  rests.sort((a, b) => (a.rest === b.rest ? a.i - b.i : a.rest > b.rest ? -1 : 1));
  for (const { i } of rests) {
    if (!left) break;
    parts[i]! += 1n;
    left -= 1;
  }
  return parts.map(Number);
}
