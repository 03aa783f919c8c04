/** Weighted channel order (no database): a permutation, drawn by weight, never a zero-weight first. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { channelUsable, weightedOrder } from './routing.ts';

describe('weighted channel order', () => {
  it('is a permutation of the routes, whatever the weights and draws', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
          minLength: 8,
          maxLength: 8,
        }),
        (weights, draws) => {
          const items = weights.map((weight, i) => ({ i, weight }));
          let k = 0;
          const out = weightedOrder(items, () => draws[k++ % draws.length]!);
          expect(out.map((x) => x.i).sort((a, b) => a - b)).toEqual(items.map((x) => x.i));
        },
      ),
    );
  });

  it('picks the first with probability weight / total', () => {
    const items = [
      { id: 'a', weight: 1 },
      { id: 'b', weight: 3 },
    ];
    // The draw is a share of the total weight: [0, 0.25) → a, [0.25, 1) → b.
    expect(weightedOrder(items, () => 0.2)[0]!.id).toBe('a');
    expect(weightedOrder(items, () => 0.25)[0]!.id).toBe('b');
    expect(weightedOrder(items, () => 0.99)[0]!.id).toBe('b');
    let seed = 7;
    const random = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    let a = 0;
    for (let n = 0; n < 20_000; n++) if (weightedOrder(items, random)[0]!.id === 'a') a++;
    expect(a / 20_000).toBeGreaterThan(0.23);
    expect(a / 20_000).toBeLessThan(0.27);
  });
});

describe('which channels may carry orders', () => {
  const deps = (simulator: boolean | undefined, demo: boolean, engine: 'pglite' | 'postgres' = 'postgres') =>
    ({ config: { simulator, demo }, database: { engine } }) as unknown as Parameters<typeof channelUsable>[0];

  it('takes the simulator only while SIMULATOR is on (by default with the demo), every other adapter always', () => {
    expect(channelUsable(deps(true, false), { adapter: 'simulator' })).toBe(true);
    expect(channelUsable(deps(false, true), { adapter: 'simulator' })).toBe(false);
    expect(channelUsable(deps(undefined, true), { adapter: 'simulator' })).toBe(true);
    expect(channelUsable(deps(undefined, false), { adapter: 'simulator' })).toBe(false);
    expect(channelUsable(deps(false, false), { adapter: 'bank' })).toBe(true);
  });
});
