import { describe, expect, it } from 'vitest';
import { amountInWords } from './amountWords.ts';

describe('amountInWords', () => {
  it.each([
    [1, 'One paisa', '一派萨'],
    [100, 'One rupee', '一卢比'],
    [10_000, 'One hundred rupees', '一百卢比'],
    [10_000_000, 'One lakh rupees', '十万卢比'],
    [12_500_050, 'One lakh twenty-five thousand rupees and fifty paise', '十二万五千卢比五十派萨'],
    [
      123_456_789_99,
      'Twelve crore thirty-four lakh fifty-six thousand seven hundred eighty-nine rupees and ninety-nine paise',
      '一亿二千三百四十五万六千七百八十九卢比九十九派萨',
    ],
  ])('%i minor units', (minor, en, zh) => {
    expect(amountInWords(minor, 'en')).toBe(en);
    expect(amountInWords(minor, 'zh_CN')).toBe(zh);
  });

  it('reads gaps inside the number', () => {
    expect(amountInWords(10_000_500, 'en')).toBe('One lakh five rupees');
    expect(amountInWords(10_000_500, 'zh_CN')).toBe('十万零五卢比');
    expect(amountInWords(1_000_050_000, 'zh_CN')).toBe('一千万零五百卢比');
    expect(amountInWords(10_001_000_000, 'zh_CN')).toBe('一亿零一万卢比');
    expect(amountInWords(100_500_000, 'zh_CN')).toBe('一百万五千卢比');
    expect(amountInWords(1_000, 'zh_CN')).toBe('十卢比');
    expect(amountInWords(11_000, 'zh_CN')).toBe('一百一十卢比');
    expect(amountInWords(10, 'zh_CN')).toBe('十派萨');
  });

  it('counts crores on above 99 crore, up to the largest payout', () => {
    expect(amountInWords(1_000_000_000_000, 'en')).toBe('One thousand crore rupees');
    expect(amountInWords(1_000_000_000_000, 'zh_CN')).toBe('一百亿卢比');
    expect(amountInWords(0, 'en')).toBe('Zero rupees');
    expect(amountInWords(0, 'zh_CN')).toBe('零卢比');
  });
});
