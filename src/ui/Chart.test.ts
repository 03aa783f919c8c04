import { describe, expect, it } from 'vitest';
import { niceTicks } from './Chart.tsx';

describe('chart ticks', () => {
  it('steps by 1, 2 or 5 times a power of ten and reaches past the largest value', () => {
    expect(niceTicks(540_000)).toEqual([0, 200_000, 400_000, 600_000]);
    expect(niceTicks(100)).toEqual([0, 50, 100]);
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(0.3)).toEqual([0, 0.1, 0.2, 0.3]);
  });

  it('draws an empty chart from 0 to 1', () => {
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(niceTicks(Number.NaN)).toEqual([0, 1]);
  });

  it('never leaves the top value above the last tick', () => {
    for (const max of [1, 3, 9.5, 99, 101, 12_345, 987_654_321]) {
      const ticks = niceTicks(max);
      expect(ticks.at(-1)).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(6);
    }
  });
});
