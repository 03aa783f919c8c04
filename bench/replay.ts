/**
 * The floor of bench/day.ts: the statements the server ran for the mix (recorded by bench/record-sql.mjs)
 * replayed straight on PostgreSQL through one pg connection, on a copy of the database the recording
 * started from: the database's own work and nothing else (no HTTP, signature, validation, query building,
 * JSON, jobs, and no waiting: one statement at a time, no lock is ever contended).
 *
 * Units: each recorded connection's statements in order, cut into transactions (`begin` … `commit` or
 * `rollback`) and single statements, replayed one after the other in the order the recording committed
 * them, so each row a unit reads (a wallet's balance and version, an order's state) is as the recording's
 * unit found it.
 *
 * Ids: sequences hand out ids in the order `nextval` is called, which the recording's concurrent units
 * did in another order than their commits. Before a statement that made ids (`nextval`, or an insert
 * answering its table's ids) the replay sets the sequence to hand out the recording's first id again (one
 * `setval`, a little more work than the server did). Where a statement's ids still come out otherwise (a
 * batch whose recorded ids were not consecutive), the recorded id and the replay's are paired, and later
 * parameters carrying the recorded id carry the replay's (in the unit; ids an insert made, in any unit).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';

export interface Recorded {
  /** The connection (process and client). */
  c: string;
  /** Sent and answered at (epoch ms). */
  t: number;
  d: number;
  s: string;
  v: (string | null)[];
  n?: string;
  /** Its rows' values as text, when few. */
  r?: (string | null)[][];
  /** It failed (SQLSTATE). */
  e?: string;
}

export interface Unit {
  at: number;
  /** Answered its last statement (committed) at. */
  end: number;
  statements: Recorded[];
  transaction: boolean;
}

export const begins = /^\s*(begin|start transaction)\b/i;
const ends = /^\s*(commit|rollback)\s*(;|$)/i;
/** The feed's own session statements, not the mix's work. */
const skipped = /^\s*(listen|unlisten)\b/i;
const integer = /^\d+$/;
/** A statement whose rows' first column is an id it made. */
const makes = /\breturning\s+"?id"?\b|\bnextval\b/i;
const nextvalOf = /\bnextval\('([^']+)'\)/i;
const insertInto = /^\s*insert\s+into\s+"?(\w+)"?/i;
/** A number that can only be an id (small numbers are as likely limits, counts or flags). */
const longId = /^\d{4,}$/;
/** Integers inside a JSON or array parameter (a batch's ids). */
const idsInText = /(?<=[[{,:"\s])(\d+)(?=[\]},"\s])/g;

/** The recorder's files in `dir`, cut into units; those that began within [from, to], in commit order. */
export function readUnits(dir: string, from: number, to: number): Unit[] {
  const byConnection = new Map<string, Recorded[]>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl')))
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      const r = JSON.parse(line) as Recorded;
      if (!r.s || skipped.test(r.s)) continue;
      const list = byConnection.get(r.c) ?? [];
      list.push(r);
      byConnection.set(r.c, list);
    }
  const units: Unit[] = [];
  const unit = (r: Recorded, transaction: boolean): Unit => ({
    at: r.t,
    end: r.d,
    statements: [r],
    transaction,
  });
  for (const list of byConnection.values()) {
    let open: Unit | undefined;
    for (const r of list) {
      if (open) {
        open.statements.push(r);
        open.end = r.d;
        if (ends.test(r.s)) open = undefined;
      } else if (begins.test(r.s)) {
        open = unit(r, true);
        units.push(open);
      } else units.push(unit(r, false));
    }
  }
  const chosen = units.filter((u) => u.at >= from && u.at <= to);
  return chosen.sort((a, b) => a.end - b.end);
}

export interface ReplayFigures {
  units: number;
  statements: number;
  seconds: number;
  /** Statements that failed in the replay where the recording's succeeded. */
  diverged: number;
  /** With `profile`: the statements by their first 60 characters, how many and their time in ms. */
  byStatement: Map<string, { n: number; ms: number }>;
  /** Each unit's time in the replay (ms), in the units' order. */
  unitMs: number[];
  samples: string[];
  /** Ends the replay's connections (after their CPU is read). */
  close(): Promise<void>;
}

/** Where the replay runs: a PostgreSQL database, or a PGlite folder opened in this process. */
interface Session {
  /** Rows as arrays; `name` and `generic`: a named statement, on a generic plan (PostgreSQL). */
  query(text: string, values: unknown[], name?: string, generic?: boolean): Promise<unknown[][]>;
  close(): Promise<void>;
}

async function postgresSession(url: string): Promise<Session> {
  // As the server's connections: values stay text, and named statements outside a transaction run on a
  // generic plan (server/db/postgres.ts).
  const types = { getTypeParser: () => (v: string) => v };
  const client = new pg.Client({ connectionString: url, types } as pg.ClientConfig);
  const generic = new pg.Client({
    connectionString: url,
    options: '-c plan_cache_mode=force_generic_plan',
    types,
  } as pg.ClientConfig);
  await Promise.all([client.connect(), generic.connect()]);
  return {
    query: async (text, values, name, onGeneric) =>
      (await (onGeneric ? generic : client).query({ text, values, name, rowMode: 'array' }))
        .rows as unknown as unknown[][],
    close: async () => {
      await Promise.all([client.end(), generic.end()]);
    },
  };
}

/** PGlite's folder (as the server keeps it: `<dir>/pgdata`), in this process: one session, as the server's. */
async function pgliteSession(dir: string): Promise<Session> {
  const db = await PGlite.create({ dataDir: join(dir, 'pgdata'), extensions: { pg_trgm } });
  return {
    query: async (text, values) => (await db.query<unknown[]>(text, values, { rowMode: 'array' })).rows,
    close: () => db.close(),
  };
}

/** Replays `units` (in commit order) on `on` (a PostgreSQL database or a PGlite folder), one statement at a time. */
export async function replay(
  on: { url: string } | { dir: string },
  units: readonly Unit[],
  opts: { profile?: boolean } = {},
): Promise<ReplayFigures> {
  const session = 'url' in on ? await postgresSession(on.url) : await pgliteSession(on.dir);
  /** Each table's id sequence. */
  const sequences = new Map(
    (
      await session.query(
        `select c.relname as t, pg_get_serial_sequence(format('%I', c.relname), 'id') as s
         from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'id'
         where c.relkind in ('r', 'p') and c.relnamespace = current_schema()::regnamespace`,
        [],
      )
    )
      .filter((r) => r[1])
      .map((r) => [String(r[0]), String(r[1])]),
  );
  /** Ids inserts made: the recording's → the replay's. */
  const born = new Map<string, string>();
  let inTransaction = false;
  let statements = 0;
  let diverged = 0;
  const samples: string[] = [];
  const byStatement = new Map<string, { n: number; ms: number }>();

  async function run(r: Recorded, mine: Map<string, string>) {
    const mapped = (v: string | null) => {
      if (v === null) return v;
      if (longId.test(v)) return mine.get(v) ?? born.get(v) ?? v;
      if (v.startsWith('[') || v.startsWith('{'))
        return v.replace(idsInText, (id) => (longId.test(id) ? (mine.get(id) ?? born.get(id) ?? id) : id));
      return v;
    };
    statements++;
    const made = makes.test(r.s);
    const first = r.e ? undefined : r.r?.[0]?.[0];
    if (first && integer.test(first) && made) {
      const sequence = r.s.match(nextvalOf)?.[1] ?? sequences.get(r.s.match(insertInto)?.[1] ?? '');
      const lowest = r.r!.reduce((m, row) => Math.min(m, Number(row[0])), Number(first));
      if (sequence) await session.query('select setval($1, $2, false)', [sequence, lowest]);
    }
    const t0 = performance.now();
    try {
      const rows = await session.query(r.s, r.v.map(mapped), r.n, !!r.n && !inTransaction);
      // Only when asked: the replay's own CPU is in the floor.
      if (opts.profile) {
        const kind = r.s.replace(/\s+/g, ' ').trim().slice(0, 60);
        const k = byStatement.get(kind) ?? { n: 0, ms: 0 };
        k.n++;
        k.ms += performance.now() - t0;
        byStatement.set(kind, k);
      }
      for (const [i, row] of (r.r ?? []).entries()) {
        const was = row[0];
        const now = rows[i]?.[0];
        if (was != null && now != null && was !== String(now) && longId.test(was)) {
          mine.set(was, String(now));
          if (made) born.set(was, String(now));
        }
      }
    } catch (e) {
      if (!r.e) {
        diverged++;
        if (samples.length < 5) samples.push(`${(e as Error).message.slice(0, 100)} · ${r.s.slice(0, 80)}`);
      }
    }
  }

  const unitMs: number[] = [];
  const t0 = performance.now();
  for (const u of units) {
    const mine = new Map<string, string>();
    inTransaction = u.transaction;
    const u0 = performance.now();
    for (const r of u.statements) await run(r, mine);
    // A unit the window cut short leaves nothing open.
    if (u.transaction && !ends.test(u.statements.at(-1)!.s)) await session.query('rollback', []);
    unitMs.push(performance.now() - u0);
  }
  const seconds = (performance.now() - t0) / 1000;
  return {
    units: units.length,
    statements,
    seconds,
    diverged,
    samples,
    byStatement,
    unitMs,
    close: () => session.close(),
  };
}
