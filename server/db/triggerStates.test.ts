/**
 * The triggers that keep the rollups (migrations 0017, 0019, 0020, 0024) name pay-in states in their
 * bodies, where the declaration (contract/machines.ts) cannot reach. This test reads the latest definition
 * of every function the migrations left in the database and ties each pay-in state list in it to the
 * pay-in machine's set it stands for: a state added to the set, or a new function naming pay-in states,
 * fails here until the triggers (a migration) and this table say the same.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payin, statementLine } from '../../contract/machines.ts';
import { rowsOf } from '../ledger/index.ts';
import { engines, startTestServer, type TestServer } from '../test/harness.ts';

type PayinSet = keyof typeof payin.sets;

/** Each function whose body names pay-in states, and the machine's set its lists stand for. */
const payinListsOf: Record<string, PayinSet> = {
  pay_time_apply: 'succeeded',
  pay_time_payins_added: 'succeeded',
  pay_time_payins_changed: 'succeeded',
  pay_time_payins_removed: 'succeeded',
  pay_time_rebuild: 'succeeded',
  reconciliation_lines: 'succeeded',
  reconciliation_payins_apply: 'succeeded',
  reconciliation_payins_added: 'succeeded',
  reconciliation_payins_changed: 'succeeded',
  reconciliation_payins_removed: 'succeeded',
  reconciliation_rebuild: 'succeeded',
};

/** Every state list a body compares a `status` with: `status = 'a'`, `status <> 'a'`, `status in ('a','b')`. */
function stateLists(body: string): string[][] {
  const lists: string[][] = [];
  for (const m of body.matchAll(/\bstatus\s*(?:=|<>|!=)\s*'([a-z_]+)'/gi)) lists.push([m[1]!]);
  for (const m of body.matchAll(/\bstatus\s+(?:not\s+)?in\s*\(([^)]*)\)/gi))
    lists.push([...m[1]!.matchAll(/'([a-z_]+)'/g)].map((s) => s[1]!));
  return lists;
}

const sorted = (states: readonly string[]) => [...new Set(states)].sort();
const payinStates = new Set<string>(payin.states);
const lineStates = new Set<string>(statementLine.states);

describe('the reader of state lists', () => {
  it('reads equalities, inequalities and IN lists', () => {
    expect(
      stateLists(`WHERE o.status = 'paid' OR n.status <> 'matched' AND status IN ('pending', 'unpaid')`),
    ).toEqual([['paid'], ['matched'], ['pending', 'unpaid']]);
  });
});

describe.each(engines)('pay-in states in the triggers on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterAll(() => s?.close());

  it("each function's pay-in state lists are the machine's sets", async () => {
    const functions = rowsOf<{ name: string; body: string }>(
      await s.db.execute(sql`
        select p.proname as name, pg_get_function_arguments(p.oid) || ' ' || p.prosrc as body
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = current_schema()
        order by 1`),
    );
    const found: Record<string, string[][]> = {};
    for (const f of functions) {
      for (const list of stateLists(f.body)) {
        // Statement-line lists (the reconciliation reads both tables) are not the pay-in machine's.
        if (list.every((st) => lineStates.has(st))) continue;
        expect(
          list.filter((st) => !payinStates.has(st)),
          `${f.name} names a state of neither machine`,
        ).toEqual([]);
        expect(
          f.body,
          `${f.name} names pay-in states without a pay-in order in its arguments or body`,
        ).toMatch(/payin_orders/);
        found[f.name] = [...(found[f.name] ?? []), sorted(list)];
      }
    }
    expect(Object.keys(found).sort()).toEqual(Object.keys(payinListsOf).sort());
    for (const [name, lists] of Object.entries(found)) {
      const set = payinListsOf[name]!;
      for (const list of lists) expect(list, `${name}: payin.sets.${set}`).toEqual(sorted(payin.sets[set]));
    }
  });

  it('no trigger names a state in its WHEN condition (the bodies above are the only place)', async () => {
    const triggers = rowsOf<{ name: string; def: string }>(
      await s.db.execute(sql`
        select t.tgname as name, pg_get_triggerdef(t.oid) as def
        from pg_trigger t where not t.tgisinternal`),
    );
    for (const t of triggers) expect(stateLists(t.def), t.name).toEqual([]);
  });
});
