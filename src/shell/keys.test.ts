import { describe, expect, it } from 'vitest';
import { keyCaps } from './keys.ts';

describe('key caps', () => {
  it('shows modifiers, sequences, Shift for capitals and the create sequences', () => {
    expect(keyCaps('mod+k')).toEqual(['Ctrl', 'K']);
    expect(keyCaps('g a')).toEqual(['G', 'A']);
    expect(keyCaps('R')).toEqual(['Shift', 'R']);
    expect(keyCaps('+ m')).toEqual(['+', 'M']);
    expect(keyCaps('ArrowDown')).toEqual(['↓']);
  });
});
