import { createServer, type Server } from 'node:http';
import type { Webhook } from 'standardwebhooks';

/** One delivery as a merchant's server received it. */
export interface Received {
  id: string;
  body: string;
  headers: { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };
  /** When it arrived (ms since the epoch). */
  receivedAt: number;
}

/** Standard Webhooks' tolerance between a delivery's timestamp and the receiver's clock. */
const toleranceSeconds = 5 * 60;

/**
 * What the official library's `verify` would have answered when the delivery arrived: signed by one of
 * `webhooks` (its own `sign`) with a timestamp within the tolerance of the receipt. Asked later, `verify`
 * itself fails a genuine delivery for its age alone once a long run passes five minutes.
 */
export function genuineAtReceipt(r: Received, webhooks: Webhook[]): boolean {
  const timestamp = Number(r.headers['webhook-timestamp']);
  if (!Number.isInteger(timestamp) || Math.abs(r.receivedAt / 1000 - timestamp) > toleranceSeconds)
    return false;
  const given = r.headers['webhook-signature'].split(' ');
  return webhooks.some((w) =>
    given.includes(w.sign(r.headers['webhook-id'], new Date(timestamp * 1000), r.body)),
  );
}

/**
 * A merchant's callback receiver on loopback for the tests that run the server in processes of its own
 * (failover, crash): records every delivery (its webhook-id, body and signature headers) and answers 200.
 */
export async function startCallbackReceiver() {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        id: String(req.headers['webhook-id']),
        body: Buffer.concat(chunks).toString('utf8'),
        headers: {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        },
        receivedAt: Date.now(),
      });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('OK');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
