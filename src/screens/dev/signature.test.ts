/**
 * The development settings' signature helper against the server: the same HMAC as the server's own
 * `hmacHex` over the contract's canonical string for any input, and a request it signs is accepted by
 * the real gateway (while a changed body, path or secret is refused).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalString } from '../../../contract/gateway.ts';
import { hmacHex } from '../../../server/lib/crypto.ts';
import { startTestServer, type TestServer } from '../../../server/test/harness.ts';
import {
  curlCommand,
  hmacSha256Hex,
  newNonce,
  type SampleRequest,
  sampleProblems,
  sentPath,
  signSample,
} from './signature.ts';

describe('signature helper', () => {
  it('signs as the server signs, for any request and secret', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('GET' as const, 'POST' as const),
        fc.webPath(),
        fc.string({ unit: 'binary' }),
        fc.stringMatching(/^\d{1,12}$/),
        fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/),
        fc.string({ unit: 'binary', minLength: 1 }),
        (method, path, body, timestamp, nonce, secret) => {
          const request: SampleRequest = { method, pathWithQuery: path, body, timestamp, nonce };
          const signed = signSample(request, secret);
          const rawBody = method === 'GET' ? '' : body;
          const expected = canonicalString(timestamp, nonce, method, signed.path, rawBody);
          expect(signed.canonical).toBe(expected);
          expect(signed.signature).toBe(hmacHex(secret, expected));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('builds the canonical string of GATEWAY.md, with an empty body for GET', () => {
    const request: SampleRequest = {
      method: 'GET',
      pathWithQuery: '/gateway/v1/payin?merchantOrderNo=A1',
      body: '{"ignored":true}',
      timestamp: '1700000000',
      nonce: 'abcdefghijklmnop',
    };
    const signed = signSample(request, 'sk_test');
    expect(signed.canonical).toBe(
      '1700000000\nabcdefghijklmnop\nGET\n/gateway/v1/payin?merchantOrderNo=A1\n',
    );
    // RFC 4231 test case 2: a known answer independent of both implementations.
    expect(hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('signs the path as the server parses it', () => {
    expect(sentPath('/gateway/v1/payin?merchantOrderNo=a b')).toBe('/gateway/v1/payin?merchantOrderNo=a%20b');
    expect(sentPath('/gateway/v1/balance')).toBe('/gateway/v1/balance');
  });

  it('names what the server would refuse before the signature', () => {
    const ok: SampleRequest = {
      method: 'POST',
      pathWithQuery: '/gateway/v1/payin',
      body: '{"a":1}',
      timestamp: '1000',
      nonce: newNonce(),
    };
    expect(sampleProblems(ok, 1000)).toEqual([]);
    expect(sampleProblems({ ...ok, timestamp: '1000' }, 1301)).toEqual(['window']);
    expect(sampleProblems({ ...ok, timestamp: '12a' }, 1000)).toEqual(['timestamp']);
    expect(sampleProblems({ ...ok, nonce: 'short' }, 1000)).toEqual(['nonce']);
    expect(sampleProblems({ ...ok, pathWithQuery: '/api/x' }, 1000)).toEqual(['path']);
    expect(sampleProblems({ ...ok, body: '{' }, 1000)).toEqual(['json']);
    expect(sampleProblems({ ...ok, method: 'GET', body: '{' }, 1000)).toEqual([]);
  });

  it('makes nonces the server accepts', () => {
    for (let i = 0; i < 50; i++) expect(newNonce()).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });

  it('quotes the curl command for the shell', () => {
    const request: SampleRequest = {
      method: 'POST',
      pathWithQuery: '/gateway/v1/payin',
      body: `{"note":"it's"}`,
      timestamp: '1',
      nonce: 'abcdefghijklmnop',
    };
    const text = curlCommand('http://127.0.0.1:8080', 'M1', request, signSample(request, 's'));
    expect(text).toContain(`--data-raw '{"note":"it'\\''s"}'`);
    expect(text).toContain(`-H 'X-Merchant-Id: M1'`);
  });
});

describe('signature helper against the gateway', () => {
  let s: TestServer;
  let merchant: Awaited<ReturnType<TestServer['makeMerchant']>>;
  beforeAll(async () => {
    s = await startTestServer('pglite');
    merchant = await s.makeMerchant();
  });
  afterAll(() => s.close());

  /** Sends a request signed by the helper, as the curl command of the screen would. */
  async function send(request: SampleRequest, secret: string, sentBody = request.body) {
    const signed = signSample(request, secret);
    const res = await s.app.request(`http://localhost${signed.path}`, {
      method: request.method,
      headers: {
        'x-merchant-id': merchant.code,
        'x-timestamp': request.timestamp,
        'x-nonce': request.nonce,
        'x-signature': signed.signature,
        'x-forwarded-for': '203.0.113.9',
        ...(request.method === 'POST' ? { 'content-type': 'application/json' } : {}),
      },
      body: request.method === 'POST' ? sentBody : undefined,
    });
    return res.status;
  }
  const now = () => String(Math.floor(s.clock.now().getTime() / 1000));

  it('is accepted for a GET and a POST', async () => {
    const balance: SampleRequest = {
      method: 'GET',
      pathWithQuery: '/gateway/v1/balance',
      body: '',
      timestamp: now(),
      nonce: newNonce(),
    };
    expect(await send(balance, merchant.apiSecret)).toBe(200);
    const body = JSON.stringify({
      merchantOrderNo: `SIG-${Date.now()}`,
      amount: '500.00',
      notifyUrl: 'https://merchant.example/callback',
    });
    const payin: SampleRequest = {
      method: 'POST',
      pathWithQuery: '/gateway/v1/payin',
      body,
      timestamp: now(),
      nonce: newNonce(),
    };
    expect(await send(payin, merchant.apiSecret)).toBe(201);
  });

  it('is refused when the body, the path or the secret differs from what was signed', async () => {
    const request: SampleRequest = {
      method: 'POST',
      pathWithQuery: '/gateway/v1/payin',
      body: JSON.stringify({ merchantOrderNo: 'SIG-X', amount: '500.00', notifyUrl: 'https://m.example/c' }),
      timestamp: now(),
      nonce: newNonce(),
    };
    expect(await send({ ...request, nonce: newNonce() }, merchant.apiSecret, `${request.body} `)).toBe(401);
    expect(await send({ ...request, nonce: newNonce() }, `${merchant.apiSecret}x`)).toBe(401);
    const balance: SampleRequest = { ...request, method: 'GET', body: '', nonce: newNonce() };
    const signed = signSample({ ...balance, pathWithQuery: '/gateway/v1/balance?x=1' }, merchant.apiSecret);
    const res = await s.app.request('http://localhost/gateway/v1/balance', {
      headers: {
        'x-merchant-id': merchant.code,
        'x-timestamp': balance.timestamp,
        'x-nonce': balance.nonce,
        'x-signature': signed.signature,
      },
    });
    expect(res.status).toBe(401);
  });
});
