import { describe, expect, it } from 'vitest';
import { endpoints } from '../../contract/index.ts';
import { parseLocal, reachesNow, readRange, resolveRange, writeRange } from './timeRange.ts';

// A fixed "now": Friday 20 November 2026, 15:30 local time.
const now = new Date(2026, 10, 20, 15, 30);
const local = (y: number, m: number, d: number, h = 0, mi = 0, s = 0, ms = 0) =>
  new Date(y, m - 1, d, h, mi, s, ms);

describe('time range', () => {
  it('turns presets into whole local days', () => {
    expect(resolveRange({ preset: 'today', from: '', to: '' }, { now }).period).toEqual({
      from: local(2026, 11, 20),
      to: local(2026, 11, 20, 23, 59, 59, 999),
    });
    expect(resolveRange({ preset: 'yesterday', from: '', to: '' }, { now }).period).toEqual({
      from: local(2026, 11, 19),
      to: local(2026, 11, 19, 23, 59, 59, 999),
    });
    expect(resolveRange({ preset: '7d', from: '', to: '' }, { now }).period?.from).toEqual(
      local(2026, 11, 14),
    );
    expect(resolveRange({ preset: '60d', from: '', to: '' }, { now }).period?.from).toEqual(
      local(2026, 9, 22),
    );
  });

  it('reads custom dates as the start of the first and the end of the last day', () => {
    expect(resolveRange({ preset: 'custom', from: '2026-11-01', to: '2026-11-07' }, { now }).period).toEqual({
      from: local(2026, 11, 1),
      to: local(2026, 11, 7, 23, 59, 59, 999),
    });
    expect(parseLocal('2026-11-07T08:15', false)).toEqual(local(2026, 11, 7, 8, 15));
    expect(parseLocal('2026-02-31', false)).toBeNull();
    expect(parseLocal('7/11/2026', false)).toBeNull();
  });

  it('refuses a missing, reversed or too old period, and a long one where a week is the most', () => {
    const custom = (from: string, to: string) => ({ preset: 'custom' as const, from, to });
    expect(resolveRange(custom('2026-11-01', ''), { now }).error).toBe('lists.period.required');
    expect(resolveRange(custom('2026-11-01', 'soon'), { now }).error).toBe('lists.period.invalid');
    expect(resolveRange(custom('2026-11-07', '2026-11-01'), { now }).error).toBe('validation.periodOrder');
    expect(resolveRange(custom('2026-09-21', '2026-11-01'), { now }).error).toBe('validation.range60');
    expect(resolveRange(custom('2026-09-22', '2026-11-01'), { now }).error).toBeNull();
    expect(resolveRange(custom('2026-11-01', '2026-11-08'), { now, maxDays: 7 }).error).toBe(
      'validation.periodWeek',
    );
    expect(resolveRange(custom('2026-11-01', '2026-11-07'), { now, maxDays: 7 }).error).toBeNull();
    expect(resolveRange({ preset: '7d', from: '', to: '' }, { now, maxDays: 7 }).error).toBeNull();
  });

  it('keeps the choice in the URL, a preset or dates but never both', () => {
    const p = writeRange(new URLSearchParams('status=paid&range=7d'), {
      preset: 'custom',
      from: '2026-11-01',
      to: '2026-11-02',
    });
    expect(p.toString()).toBe('status=paid&from=2026-11-01&to=2026-11-02');
    expect(readRange(p, 'today')).toEqual({ preset: 'custom', from: '2026-11-01', to: '2026-11-02' });
    expect(readRange(new URLSearchParams('range=30d'), 'today').preset).toBe('30d');
    expect(readRange(new URLSearchParams('range=bogus'), 'today').preset).toBe('today');
  });

  it('agrees with the export endpoint on the one-week limit', () => {
    const week = resolveRange({ preset: '7d', from: '', to: '' }, { now }).period!;
    const month = resolveRange({ preset: '30d', from: '', to: '' }, { now }).period!;
    const input = (p: { from: Date; to: Date }) => ({
      from: p.from.toISOString(),
      to: p.to.toISOString(),
      format: 'csv',
    });
    expect(endpoints.merchantOrder.export.input.safeParse(input(week)).success).toBe(true);
    expect(endpoints.merchantOrder.export.input.safeParse(input(month)).success).toBe(false);
  });

  it('knows when a period reaches the present (live refresh)', () => {
    expect(reachesNow(resolveRange({ preset: 'today', from: '', to: '' }, { now }).period!, now)).toBe(true);
    expect(reachesNow(resolveRange({ preset: 'yesterday', from: '', to: '' }, { now }).period!, now)).toBe(
      false,
    );
  });
});
