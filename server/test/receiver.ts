import { createServer, type Server } from 'node:http';

/** One delivery as a merchant's server received it. */
export interface Received {
  id: string;
  body: string;
  headers: { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };
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
