/**
 * Declared states (contract/machines.ts) in SQL. They are constants of the declaration, never input, so
 * they are written as literals: a partial index whose predicate names a state is then matched by the
 * planner, which a bound parameter would not be.
 */
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';

const stateName = /^[a-z][a-z_]*$/;

/** The states as a list of SQL literals (`'a','b'`). */
export function statesSql(states: readonly string[]): SQL {
  for (const s of states) if (!stateName.test(s)) throw new Error(`not a state name: ${s}`);
  return sql.raw(states.map((s) => `'${s}'`).join(','));
}

/**
 * `column` holds one of `states`, as equalities joined by OR: each can then be read through a partial
 * index of its own state (PostgreSQL before 18 does not split an IN list for that).
 */
export function inStates(column: SQLWrapper, states: readonly string[]): SQL {
  if (!states.length) return sql`false`;
  return sql`(${sql.join(
    states.map((s) => sql`${column} = ${statesSql([s])}`),
    sql` or `,
  )})`;
}

/**
 * `column` holds one of `states`, as the guard of a compare-and-set on rows found by their key: written
 * so that no partial index of a state can serve it (the planner cannot prove `status collate "C" = 'x'`
 * implies an index's `status = 'x'`), and the key's index finds the row. With the plain form, statistics
 * that count no row in the state (a table analysed before any order was pending) price the partial index
 * as empty, and the update walks every pending row filtering on the key: 7,900 rows a payment in the
 * day's benchmark (bench/RESULTS.md, issue 31). Text equality under "C" is byte equality, as under any
 * deterministic collation.
 */
export function guardStates(column: SQLWrapper, states: readonly string[]): SQL {
  if (!states.length) return sql`false`;
  return sql`${column} collate "C" in (${statesSql(states)})`;
}
