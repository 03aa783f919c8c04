import type { Piscina } from 'piscina';
import { errno } from '../../contract/errno.ts';
import { AppError } from './errors.ts';

/** True when the request's `Content-Length` announces more than `maxBytes`: refused before any byte is read. */
export function declaredTooLarge(headers: Headers, maxBytes: number): boolean {
  const length = headers.get('content-length');
  return length !== null && /^\d+$/.test(length.trim()) && Number(length) > maxBytes;
}

/**
 * A request's body as bytes, never holding more than `maxBytes` of it: refused (413) at once when
 * `Content-Length` says more, otherwise counted as it streams and refused the moment it passes the limit.
 * Reading simply stops there; the HTTP server discards the rest after the answer and closes the
 * connection, so a sender cannot make the process buffer more than the limit.
 */
async function readBodyBytes(req: Request, maxBytes: number): Promise<Uint8Array> {
  if (declaredTooLarge(req.headers, maxBytes)) throw new AppError(errno.payloadTooLarge);
  // A declared length within the limit is all the HTTP parser will deliver: read it the cheap way
  // (node-server reads the socket straight into a buffer; touching `body` builds a whole web Request and
  // its stream, about a third more server CPU for each signed creation). Without one (chunked), count.
  if (req.headers.get('content-length') !== null) return new Uint8Array(await req.arrayBuffer());
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw new AppError(errno.payloadTooLarge);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks, size);
}

/** A request's body as text, read as `readBodyBytes` reads it. */
export async function readBodyText(req: Request, maxBytes: number): Promise<string> {
  // Decoded as `Request.text()` decodes (UTF-8, a leading BOM dropped): the gateway signs this text.
  return new TextDecoder().decode(await readBodyBytes(req, maxBytes));
}

/** Bodies over this are parsed in a worker thread: 10 MB of JSON holds the event loop for 20–60 ms. */
export const offThreadBodyBytes = 1024 * 1024;

let jsonPool: Promise<Piscina> | undefined;

/** One thread, made on first use and ended when idle (a large body is a statement or a bulk file). */
function parser(): Promise<Piscina> {
  jsonPool ??= import('piscina').then(
    ({ Piscina }) =>
      new Piscina({
        // Beside the running module: server/http in the source, dist/server in the built server.
        filename: new URL('./jsonWorker.mjs', import.meta.url).href,
        minThreads: 0,
        maxThreads: 1,
        idleTimeout: 30_000,
      }),
  );
  return jsonPool;
}

/**
 * A request's JSON body as a value (`{}` when empty), read as `readBodyBytes` reads it; a large one (over
 * `offThreadBodyBytes`) is decoded and parsed in a worker thread and handed back. Not JSON: 400.
 */
export async function readBodyJson(req: Request, maxBytes: number): Promise<unknown> {
  const bytes = await readBodyBytes(req, maxBytes);
  if (bytes.byteLength > offThreadBodyBytes) {
    // Handed over whole, not copied; a view into a larger (pooled) buffer is copied first.
    const own =
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    return (await parser())
      .run(own, { transferList: [own.buffer as ArrayBuffer] })
      .catch(() => Promise.reject(new AppError(errno.badRequest)));
  }
  const text = new TextDecoder().decode(bytes);
  try {
    return text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new AppError(errno.badRequest);
  }
}
