/**
 * Records every statement the server sends to PostgreSQL, for the floor of bench/day.ts: preloaded into
 * the server's processes (`node --import ./bench/record-sql.mjs`, cluster workers inherit it) with
 * `RECORD_SQL` naming a directory. Each process writes `<pid>.jsonl`, one line a statement: the
 * connection, when it was sent and when it was answered (epoch ms), its text, its parameters as the driver sends them (text),
 * its prepared name, and the rows it answered when they were few (the replay maps the ids they carry:
 * sequences hand out other ids there). The server's code is untouched: pg's client is wrapped, and on
 * PGlite (one session) the protocol messages it is handed are read back into statements.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import utils from 'pg/lib/utils.js';
import { loadInPgliteThread } from './pgliteThreadPreload.mjs';

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

  // PGlite: every call reaches `execProtocolRawStream` as frontend messages (Parse, Bind, Execute, Query)
  // (server/db/pgliteBackend.ts, `callPglite`). A statement is recorded at its Execute (or Query), with the
  // rows of the DataRow messages answered.
  const raw = PGlite.prototype.execProtocolRawStream;
  const text = new TextDecoder();
  /** Prepared statements' texts by name ('' the unnamed one). */
  const parsed = new Map();
  let bound;
  const cstring = (b, at) => {
    const end = b.indexOf(0, at);
    return [text.decode(b.subarray(at, end)), end + 1];
  };
  /** The backend's answer: the first rows' values, and the SQLSTATE of an error. */
  const answerOf = (b) => {
    const rows = [];
    let code;
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    for (let i = 0; i + 5 <= b.length; ) {
      const type = b[i];
      const len = view.getInt32(i + 1);
      if (type === 0x44 && rows.length <= 20) {
        const row = [];
        let at = i + 7;
        for (let n = view.getInt16(i + 5); n > 0; n--) {
          const l = view.getInt32(at);
          at += 4;
          row.push(l < 0 ? null : text.decode(b.subarray(at, at + l)));
          if (l > 0) at += l;
        }
        rows.push(row);
      } else if (type === 0x45) {
        for (let at = i + 5; b[at] !== 0; ) {
          const field = b[at];
          const [value, next] = cstring(b, at + 1);
          if (field === 0x43) code = value;
          at = next;
        }
      }
      i += 1 + len;
    }
    return { rows: rows.length <= 20 ? rows : undefined, code };
  };
  loadInPgliteThread(import.meta.url);
  PGlite.prototype.execProtocolRawStream = async function (message, options) {
    const b = message instanceof Uint8Array ? message : new Uint8Array(message);
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const entries = [];
    for (let i = 0; i + 5 <= b.length; ) {
      const type = b[i];
      const len = view.getInt32(i + 1);
      const at = i + 5;
      if (type === 0x50) {
        const [name, next] = cstring(b, at);
        parsed.set(name, cstring(b, next)[0]);
      } else if (type === 0x42) {
        let [, p] = cstring(b, at);
        const [statement, q] = cstring(b, p);
        p = q;
        const formats = view.getInt16(p);
        p += 2 + 2 * formats;
        const values = [];
        for (let n = view.getInt16(p), k = p + 2; n > 0; n--) {
          const l = view.getInt32(k);
          k += 4;
          values.push(l < 0 ? null : text.decode(b.subarray(k, k + l)));
          if (l > 0) k += l;
        }
        bound = { s: parsed.get(statement), v: values, n: statement || undefined };
      } else if (type === 0x45 && bound) {
        entries.push(bound);
        bound = undefined;
      } else if (type === 0x51) entries.push({ s: cstring(b, at)[0], v: [] });
      i += 1 + len;
    }
    const t = performance.timeOrigin + performance.now();
    const chunks = [];
    await raw.call(this, message, {
      ...options,
      onRawData: (chunk) => {
        chunks.push(chunk.slice());
        options.onRawData(chunk);
      },
    });
    if (entries.length) {
      const d = performance.timeOrigin + performance.now();
      const { rows, code } = answerOf(Buffer.concat(chunks));
      for (const e of entries) {
        // A transaction's BEGIN rides with its first statement (server/db/pgliteClient.ts): the answer's rows
        // and error are the statement's (and a named one's plan-mode lines', which return none), not its.
        const begin = /^\s*begin\s*$/i.test(e.s);
        const entry = { c: `${process.pid}.1`, t, s: e.s, v: e.v, n: e.n, d, r: begin ? undefined : rows };
        if (code && !begin) entry.e = code;
        buffer.push(`${JSON.stringify(entry)}\n`);
      }
      if (buffer.length >= 2000) flush();
    }
  };
}
