/**
 * What PostgreSQL's sessions wait on during a run of bench/day.ts (issue 31): samples `pg_stat_activity` of
 * one database every 100 ms and prints, each second, the samples' waits counted by event (`cpu` when
 * active and waiting on nothing), and every sample where three or more sessions wait on a lock: their
 * blockers grouped by what they run and their state (an `idle in transaction` blocker is back at the server).
 *
 *   node bench/sampler.mjs [database, default bench_day_run] [seconds, default 60] [server url]
 * Start it when the run prints its steps; the run's copy is `<seeded database>_run`.
 */
import pg from 'pg';

const db = process.argv[2] ?? 'bench_day_run';
const seconds = Number(process.argv[3] ?? 60);
const client = new pg.Client({
  connectionString: process.argv[4] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
});
await client.connect();
const until = Date.now() + seconds * 1000;
let second = 0;
let waits = new Map();
let samples = 0;
while (Date.now() < until) {
  const { rows } = await client.query(
    `select coalesce(wait_event_type, 'cpu') || ':' || coalesce(wait_event, '-') as w from pg_stat_activity
     where datname = $1 and state <> 'idle' and pid <> pg_backend_pid()`,
    [db],
  );
  samples++;
  for (const { w } of rows) waits.set(w, (waits.get(w) ?? 0) + 1);
  const locked = rows.filter((r) => r.w.startsWith('Lock')).length;
  if (locked >= 3) {
    const blockers = await client.query(
      `with w as (select pid, unnest(pg_blocking_pids(pid)) as b from pg_stat_activity
         where datname = $1 and wait_event_type = 'Lock')
       select count(*)::int as waiting, a.state, left(regexp_replace(a.query, '\\s+', ' ', 'g'), 100) as blocker
       from w join pg_stat_activity a on a.pid = w.b group by 2, 3 order by 1 desc limit 4`,
      [db],
    );
    console.log(
      new Date().toISOString().slice(11, 23),
      `${locked} waiting on locks`,
      JSON.stringify(blockers.rows),
    );
  }
  const now = Math.floor(Date.now() / 1000);
  if (now !== second) {
    if (second) {
      const top = [...waits].sort((x, y) => y[1] - x[1]).slice(0, 6);
      console.log(
        new Date(second * 1000).toISOString().slice(11, 19),
        `${samples} samples`,
        JSON.stringify(top),
      );
    }
    second = now;
    waits = new Map();
    samples = 0;
  }
  await new Promise((r) => setTimeout(r, 100));
}
await client.end();
