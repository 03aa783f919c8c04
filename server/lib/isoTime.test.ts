import { describe, expect, it } from 'vitest';
import { isoOf, isoOfMs } from './isoTime.ts';

describe('isoOf', () => {
  it('writes what toISOString writes, across days, years and the edges of its range', () => {
    const instants = [
      0,
      1,
      999,
      86_399_999,
      86_400_000,
      951_782_400_000, // 2000-02-29
      1_763_719_200_123,
      253_402_300_799_999,
      253_402_300_800_000, // year 10000: the built-in's own form
      -1,
      -62_198_755_200_000, // year 0
    ];
    // A sweep over midnights, one step of 7,777,777 ms (crosses days at every time of day).
    for (let ms = 1_700_000_000_000; ms < 1_700_000_000_000 + 40 * 86_400_000; ms += 7_777_777)
      instants.push(ms);
    // Random instants over the whole range, alternating far apart (the kept day changes every call).
    let seed = 20261122;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 20_000; i++) instants.push(Math.floor(random() * 253_402_300_800_000));
    for (const ms of instants) {
      expect(isoOf(new Date(ms)), String(ms)).toBe(new Date(ms).toISOString());
      expect(isoOfMs(ms), String(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('refuses an invalid date as the built-in does', () => {
    expect(() => isoOf(new Date(Number.NaN))).toThrow(RangeError);
  });
});
