import { errno } from '../../contract/errno.ts';
import { AppError } from './errors.ts';

/** True when the request's `Content-Length` announces more than `maxBytes`: refused before any byte is read. */
export function declaredTooLarge(headers: Headers, maxBytes: number): boolean {
  const length = headers.get('content-length');
  return length !== null && /^\d+$/.test(length.trim()) && Number(length) > maxBytes;
}

/**
 * A request's body as text, never holding more than `maxBytes` of it: refused (413) at once when
 * `Content-Length` says more, otherwise counted as it streams and refused the moment it passes the limit.
 * Reading simply stops there; the HTTP server discards the rest after the answer and closes the
 * connection, so a sender cannot make the process buffer more than the limit.
 */
export async function readBodyText(req: Request, maxBytes: number): Promise<string> {
  if (declaredTooLarge(req.headers, maxBytes)) throw new AppError(errno.payloadTooLarge);
  // A declared length within the limit is all the HTTP parser will deliver: read it the cheap way
  // (node-server reads the socket straight into a buffer; touching `body` builds a whole web Request and
  // its stream, about a third more server CPU for each signed creation). Without one (chunked), count.
  if (req.headers.get('content-length') !== null) return req.text();
  if (!req.body) return '';
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
  // Decoded as `Request.text()` decodes (UTF-8, a leading BOM dropped): the gateway signs this text.
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}
