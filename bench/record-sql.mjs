/**
 * Records every statement the server sends to PostgreSQL, for the floor of bench/day.ts: preloaded into
 * the server's processes (`node --import ./bench/record-sql.mjs`, cluster workers inherit it) with
 * `RECORD_SQL` naming a directory. Each process writes `<pid>.jsonl`, one line a statement: the
 * connection, when it was sent and when it was answered (epoch ms), its text, its parameters as the driver sends them (text),
 * its prepared name, and the rows it answered when they were few (the replay maps the ids they carry:
 * sequences hand out other ids there). The server's code is untouched: pg's client is wrapped.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import utils from 'pg/lib/utils.js';

const dir = process.env.RECORD_SQL;
if (dir) {
  const fd = openSync(join(dir, `${process.pid}.jsonl`), 'a');
  let buffer = [];
  const flush = () => {
    if (buffer.length) writeSync(fd, buffer.join(''));
    buffer = [];
  };
  process.on('exit', () => {
    flush();
    closeSync(fd);
  });
  setInterval(flush, 500).unref();
  let connections = 0;
  /** The first rows of an answer, each as its values' text (a few: ids and states, not pages). */
  const rowsOf = (result) => {
    const rows = Array.isArray(result) ? result.at(-1)?.rows : result?.rows;
    if (!Array.isArray(rows) || rows.length > 20) return undefined;
    return rows.map((r) =>
      (Array.isArray(r) ? r : Object.values(r)).map((v) =>
        v === null || v === undefined ? null : String(v),
      ),
    );
  };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, values, callback) {
    // A cursor or stream (an export) is left out: its rows are read in batches the replay cannot repeat.
    if (config && typeof config.submit === 'function') return query.call(this, config, values, callback);
    this.recordedAs ??= `${process.pid}.${++connections}`;
    const text = typeof config === 'string' ? config : config?.text;
    const params = (typeof config === 'object' && config?.values) || (Array.isArray(values) ? values : []);
    const entry = {
      c: this.recordedAs,
      t: performance.timeOrigin + performance.now(),
      s: text,
      v: params.map((p) => utils.prepareValue(p)),
      n: typeof config === 'object' ? config?.name : undefined,
    };
    const done = (result, err) => {
      entry.d = performance.timeOrigin + performance.now();
      entry.r = rowsOf(result);
      if (err) entry.e = err.code ?? 'error'; // replayed too: a transaction it aborted fails the same way
      buffer.push(`${JSON.stringify(entry)}\n`);
      if (buffer.length >= 2000) flush();
    };
    const cb = typeof values === 'function' ? values : callback;
    if (typeof cb === 'function') {
      const wrapped = (err, result) => {
        done(result, err);
        cb(err, result);
      };
      return typeof values === 'function'
        ? query.call(this, config, wrapped)
        : query.call(this, config, values, wrapped);
    }
    const answer = query.call(this, config, values);
    if (answer && typeof answer.then === 'function') answer.then(done, (err) => done(undefined, err));
    return answer;
  };
}
