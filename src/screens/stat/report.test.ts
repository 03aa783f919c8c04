import { describe, expect, it } from 'vitest';
import {
  businessToday,
  dayStart,
  daysOf,
  duration,
  payinsOfDay,
  percent,
  rateTone,
  readReportChoice,
  resolveReportPeriod,
  writeReportChoice,
} from './report.ts';

const t = (key: string, p: Record<string, unknown> = {}) =>
  `${key.split('.').at(-1)}:${Object.entries(p)
    .map(([k, v]) => `${k}=${v}`)
    .join(',')}`;

describe('report period', () => {
  it('reads the business day of an instant in the business time zone, not the browser’s', () => {
    const late = new Date('2026-11-23T20:00:00Z'); // 01:30 next day in Kolkata
    expect(businessToday('Asia/Kolkata', late)).toBe('2026-11-24');
    expect(businessToday('UTC', late)).toBe('2026-11-23');
    expect(businessToday('America/New_York', late)).toBe('2026-11-23');
  });

  it('counts presets back from today, today included', () => {
    const today = '2026-11-24';
    expect(resolveReportPeriod({ preset: 'today', from: '', to: '' }, today).period).toEqual({
      from: today,
      to: today,
    });
    expect(resolveReportPeriod({ preset: '7d', from: '', to: '' }, today).period).toEqual({
      from: '2026-11-18',
      to: today,
    });
    expect(resolveReportPeriod({ preset: '60d', from: '', to: '' }, today).period).toEqual({
      from: '2026-09-26',
      to: today,
    });
  });

  it('refuses a custom period without both ends, out of order, not a day, or longer than the contract allows', () => {
    const r = (from: string, to: string) => resolveReportPeriod({ preset: 'custom', from, to }, '2026-11-24');
    expect(r('2026-11-01', '').error).toBe('lists.period.required');
    expect(r('2026-02-30', '2026-03-01').error).toBe('validation.day');
    expect(r('2026-11-10', '2026-11-01').error).toBe('validation.periodOrder');
    expect(r('2026-09-01', '2026-11-02').error).toBe('validation.dayPeriod'); // 62 days apart: 63 days
    expect(r('2026-09-01', '2026-11-02').period).toBeNull();
    expect(r('2026-09-01', '2026-11-01').period).toEqual({ from: '2026-09-01', to: '2026-11-01' }); // 61 apart: 62 days
  });

  it('keeps a preset or days in the URL, never both, and starts paging again', () => {
    const p = new URLSearchParams('range=30d&cursor=abc&merchantId=3');
    expect(readReportChoice(p)).toEqual({ preset: '30d', from: '', to: '' });
    expect(readReportChoice(new URLSearchParams('range=nonsense'))).toEqual({
      preset: '7d',
      from: '',
      to: '',
    });
    const custom = writeReportChoice(p, { preset: 'custom', from: '2026-11-01', to: '2026-11-02' });
    expect(custom.toString()).toBe('merchantId=3&from=2026-11-01&to=2026-11-02');
    expect(readReportChoice(custom)).toEqual({ preset: 'custom', from: '2026-11-01', to: '2026-11-02' });
    // The default preset leaves the URL clean.
    expect(writeReportChoice(custom, { preset: '7d', from: '', to: '' }).toString()).toBe('merchantId=3');
  });

  it('lists every day of a period for the charts, empty ones included', () => {
    expect(daysOf({ from: '2026-02-27', to: '2026-03-02' })).toEqual([
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
    ]);
  });
});

describe('a business day as instants', () => {
  it('begins at midnight in its zone', () => {
    expect(dayStart('2026-11-24', 'Asia/Kolkata').toISOString()).toBe('2026-11-23T18:30:00.000Z');
    expect(dayStart('2026-11-24', 'UTC').toISOString()).toBe('2026-11-24T00:00:00.000Z');
    // Across daylight saving: New York is UTC−4 on 8 March 2026 after 02:00, UTC−5 at its midnight.
    expect(dayStart('2026-03-08', 'America/New_York').toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(dayStart('2026-03-09', 'America/New_York').toISOString()).toBe('2026-03-09T04:00:00.000Z');
  });

  it('opens the order list on exactly that day’s instants, with the row’s merchant, channel and state', () => {
    const url = new URL(
      payinsOfDay({ day: '2026-11-24', merchantId: 7, channelId: 3 }, 'Asia/Kolkata', true),
      'http://x',
    );
    expect(url.pathname).toBe('/order');
    expect(url.searchParams.get('merchantId')).toBe('7');
    expect(url.searchParams.get('channelId')).toBe('3');
    expect(url.searchParams.get('status')).toBe('paid');
    // The list reads local minutes; its end takes the whole last minute (to :59.999).
    const from = new Date(url.searchParams.get('from') as string);
    const to = new Date(`${url.searchParams.get('to')}:59.999`);
    expect(from.toISOString()).toBe('2026-11-23T18:30:00.000Z');
    expect(to.toISOString()).toBe('2026-11-24T18:29:59.999Z');
    const all = new URL(payinsOfDay({ day: '2026-11-24', channelId: null }, 'UTC', false), 'http://x');
    expect([...all.searchParams.keys()]).toEqual(['from', 'to']);
  });
});

describe('figures', () => {
  it('shows a rate as a percentage and a time as its two largest units', () => {
    expect(percent(0.975)).toBe('97.5 %');
    expect(percent(1)).toBe('100.0 %');
    expect(percent(null)).toBe('—');
    expect(duration(null, t)).toBe('—');
    expect(duration(42.4, t)).toBe('s:s=42');
    expect(duration(120, t)).toBe('min:min=2,s=0');
    expect(duration(150, t)).toBe('minS:min=2,s=30');
    expect(duration(3600, t)).toBe('h:h=1,min=0');
    expect(duration(3900, t)).toBe('hMin:h=1,min=5');
  });

  it('paints a rate as the dashboard does', () => {
    expect(rateTone(null)).toBe('ok');
    expect(rateTone(0.95)).toBe('ok');
    expect(rateTone(0.8)).toBe('warn');
    expect(rateTone(0.5)).toBe('bad');
  });
});
