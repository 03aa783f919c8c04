import { describe, expect, it } from 'vitest';
import { apportion } from './apportion.ts';

describe('apportion', () => {
  it('splits exactly, the leftover units to the largest remainders', () => {
    expect(apportion(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(apportion(10, [3, 7])).toEqual([3, 7]);
    expect(apportion(5, [2, 3, 5])).toEqual([1, 2, 2]);
    expect(apportion(0, [4, 5])).toEqual([0, 0]);
    expect(apportion(7, [0, 1])).toEqual([0, 7]);
  });

  it('stays exact where floating point would not', () => {
    const weights = [999_999_999_999, 333_333_333_333, 1];
    const parts = apportion(1_000_000_000_000, weights);
    expect(parts.reduce((a, b) => a + b, 0)).toBe(1_000_000_000_000);
    for (let i = 0; i < 1000; i++) {
      const w = Array.from({ length: 1 + (i % 7) }, (_, k) => ((i + 1) * (k + 3) * 7919) % 100_003);
      const total = (i * 104_729) % 1_000_000;
      if (!w.some(Boolean)) continue;
      expect(apportion(total, w).reduce((a, b) => a + b, 0)).toBe(total);
    }
  });

  it('refuses what it cannot split', () => {
    expect(() => apportion(1, [0, 0])).toThrow();
    expect(() => apportion(-1, [1])).toThrow();
  });
});
