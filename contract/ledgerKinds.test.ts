import { describe, expect, it } from 'vitest';
import en from '../locales/en.json' with { type: 'json' };
import zh from '../locales/zh_CN.json' with { type: 'json' };
import {
  type EntryKind,
  entryKindLabel,
  entryKindLabelKey,
  entryKinds,
  heldKind,
  readEntryKind,
} from './ledgerKinds.ts';

const kinds = Object.keys(entryKinds) as EntryKind[];

/** A message of a locale file by its dotted key, or undefined. */
const message = (strings: unknown, key: string) =>
  key.split('.').reduce<unknown>((v, part) => (v as Record<string, unknown> | undefined)?.[part], strings);

describe('ledger entry kinds', () => {
  it('every kind has its label in both languages, and the table holds no other', () => {
    for (const strings of [en, zh]) {
      for (const k of kinds) expect(typeof message(strings, entryKindLabelKey(k)), k).toBe('string');
      expect(Object.keys(strings.ledger.kinds).sort()).toEqual([...kinds].sort());
    }
  });

  it('numbers a held kind by its rule and reads it back', () => {
    expect(heldKind('payout_freeze', 1)).toBe('payout_freeze_1');
    expect(heldKind('payout_release', 3)).toBe('payout_release_3');
    expect(heldKind('settlement_hold', 1)).toBe('settlement_hold');
    expect(heldKind('settlement_hold', 2)).toBe('settlement_hold_2');
    for (const k of kinds) {
      expect(readEntryKind(k)).toEqual({ kind: k, n: 1 });
      if (entryKinds[k] !== 'once') {
        for (const n of [1, 2, 12]) expect(readEntryKind(heldKind(k as never, n))).toEqual({ kind: k, n });
      }
    }
    expect(readEntryKind('payout_success_2')).toBeNull();
    expect(readEntryKind('test_credit')).toBeNull();
    expect(readEntryKind('toString')).toBeNull();
  });

  it('labels a later hold with its number and an undeclared kind as stored', () => {
    const t = (key: string) => String(message(en, key));
    expect(entryKindLabel(t, 'settlement_hold')).toBe('Settlement hold');
    expect(entryKindLabel(t, 'payout_freeze_1')).toBe('Payout hold');
    expect(entryKindLabel(t, 'settlement_hold_2')).toBe('Settlement hold #2');
    expect(entryKindLabel(t, 'settlement_paid')).toBe('Settlement paid out');
    expect(entryKindLabel(t, 'test_payin')).toBe('test_payin');
  });
});
