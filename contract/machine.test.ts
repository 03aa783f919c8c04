import { describe, expect, it } from 'vitest';
import en from '../locales/en.json' with { type: 'json' };
import zh from '../locales/zh_CN.json' with { type: 'json' };
import { machine } from './machine.ts';
import { machines } from './machines.ts';

const base = {
  name: 't',
  states: ['a', 'b', 'c'],
  initial: 'a',
  final: ['c'],
  actions: { go: { from: ['a'], to: 'b' }, end: { from: ['b'], to: 'c' } },
  sets: {},
} as const;

describe('the state machine form', () => {
  it('accepts a well-formed machine and answers from its declaration', () => {
    const m = machine(base);
    expect(m.can('go', 'a')).toBe(true);
    expect(m.can('go', 'b')).toBe(false);
    expect(m.to('end')).toBe('c');
    expect(m.isFinal('c')).toBe(true);
    expect(m.state.b).toBe('b');
  });
  it('refuses unknown states, moves out of a final state and unreachable states', () => {
    expect(() => machine({ ...base, actions: { go: { from: ['a'], to: 'x' as 'b' } } })).toThrow(
      /unknown state x/,
    );
    expect(() => machine({ ...base, actions: { ...base.actions, back: { from: ['c'], to: 'a' } } })).toThrow(
      /moves out of final c/,
    );
    expect(() => machine({ ...base, actions: { go: { from: ['a'], to: 'b' } } })).toThrow(
      /c cannot be reached/,
    );
    expect(() => machine({ ...base, sets: { odd: ['z' as 'a'] } })).toThrow(/set odd names unknown state z/);
  });
});

describe('the declared machines', () => {
  const lookup = (tree: unknown, key: string) =>
    key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], tree);
  for (const m of machines) {
    it(`${m.name}: every state has a label in both languages`, () => {
      for (const s of m.states) {
        expect(lookup(en, `status.${m.name}.${s}`), `en status.${m.name}.${s}`).toBeTypeOf('string');
        expect(lookup(zh, `status.${m.name}.${s}`), `zh status.${m.name}.${s}`).toBeTypeOf('string');
      }
    });
  }
});
