/**
 * P24: no input produces a 5xx, every answer is the envelope, and a rejected input changes nothing.
 * Per endpoint, fast-check sends random JSON values and near-valid mutations of a plausible input
 * (one field dropped, retyped or oversized, an extra key) as a holder of `*` (the platform
 * administrator, or a merchant's owner for merchant endpoints; either for shared ones) and anonymously,
 * as a query string for GETs and a JSON body for POSTs. Endpoints that write on valid input only get
 * inputs their schema rejects, so the whole database (but the trail) must stay exactly as it was.
 * Every answer also holds to the published document (issue 29): its HTTP status is the one beside its
 * errno, the operation declares it, and the body is valid under that response's schema (`documented.ts`).
 * A user of the endpoint's kind holding no permission is turned away (403) as the document says. Last,
 * writers get inputs their schema accepts too, each as a throwaway user holding `*` (signing out, wrong
 * passwords, a deleted account end only that user), asserting the same: no 5xx, answers as documented.
 * FUZZ_RUNS=500 runs a longer hunt.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Errno, httpStatus } from '../../contract/errno.ts';
import { allEndpoints, type Endpoint, endpoints } from '../../contract/index.ts';
import { operationLog } from '../db/schema.ts';
import { openApiDocument, schemaOf } from '../http/openapi.ts';
import { csvMapping } from '../modules/receiving/testkit.ts';
import { documentChecker } from './documented.ts';
import { fingerprinter } from './fingerprint.ts';
import { engines, errno, startTestServer, type TestServer } from './harness.ts';

/** GET endpoints that write on valid input (a sent code); every POST writes. */
const getsThatWrite = new Set(['auth.sendEmailCode']);
const writes = (ep: Endpoint) => ep.method === 'POST' || getsThatWrite.has(ep.id);

const b64 = (s: string) => Buffer.from(s).toString('base64url');

// ---- values -----------------------------------------------------------------------------------

const special = fc.constantFrom<unknown>(
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  2 ** 31,
  -(2 ** 31) - 1,
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e3',
  '1.5',
  '0x10',
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  'null',
  'true',
  '[]',
  '{}',
  '9223372036854775807',
  '%00',
  "'; drop table users; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '\u202e',
  '\uD800',
  '😀',
  '𝕏Ω≈ç√',
  '*',
  'GET /admin/list',
);
/** 1,000 to 5,000 repetitions of one character (up to ~30 KB once JSON-escaped). */
const huge = fc
  .tuple(fc.integer({ min: 1000, max: 5000 }), fc.constantFrom('a', 'é', '😀', '\u0000', '%', '9', ' ', '"'))
  .map(([n, ch]) => ch.repeat(n));
const deep = fc.tuple(fc.integer({ min: 20, max: 400 }), fc.boolean()).map(([n, asArray]) => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = asArray ? [v] : { a: v };
  return v;
});
const leaf = fc.oneof(
  { weight: 6, arbitrary: special },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.double() },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: huge },
);
const bad: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: leaf },
  { weight: 1, arbitrary: deep },
  { weight: 2, arbitrary: fc.array(leaf, { maxLength: 4 }) },
  { weight: 2, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), leaf, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** Cursors and instants at and beyond the edges of what the database can hold. */
const edgeCursors = [
  b64('2020-01-01T00:00:00.000Z|5'),
  b64('-100000-01-01T00:00:00.000Z|1'),
  b64('+275760-09-13T00:00:00.000Z|1'),
  b64('0000-01-01T00:00:00.000Z|1'),
  b64('2020-01-01T00:00:00.000Z|99999999999999999999'),
  b64('2020-01-01T00:00:00.000Z|9999999999'),
  b64('1|1'),
  b64('x'),
  'AAAA',
];
const edgeTimes = [
  '2020-01-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00+01:00',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '9999-12-31T23:59:59-05:00',
];

/** A plausible value for a field, by name first, then by its JSON schema. */
function plausible(name: string, schema: Record<string, unknown>): fc.Arbitrary<unknown> {
  switch (name) {
    case 'id':
      return fc.integer({ min: 1, max: 8 });
    case 'page':
      return fc.integer({ min: 1, max: 3 });
    case 'pageSize':
      return fc.integer({ min: 1, max: 100 });
    case 'username':
      return fc.constantFrom('admin', 'nobody', 'user_1');
    case 'password':
    case 'oldPassword':
    case 'newPassword':
    case 'confirmPassword':
      return fc.constant('Passw0rd!x');
    case 'code':
      return fc.constant('123456');
    case 'email':
      return fc.constant('a@example.com');
    case 'secret':
      return fc.constant('JBSWY3DPEHPK3PXP');
    case 'roleIds':
      return fc.constantFrom([1], []);
    case 'perms':
      return fc.constantFrom([], ['GET /admin/list'], ['*']);
    case 'cursor':
      return fc.constantFrom(...edgeCursors);
    case 'from':
    case 'to':
      if (schema.format === 'date-time') return fc.constantFrom(...edgeTimes);
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case 'integer':
    case 'number':
      return fc.integer({ min: 1, max: 5 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.constant([]);
    default:
      return fc.constantFrom('abc', 'Nick', 'auth.');
  }
}

/** An input near the schema: plausible fields, then maybe one dropped, retyped or added. */
function nearValid(ep: Endpoint): fc.Arbitrary<unknown> {
  const json = schemaOf(ep.input, 'input') as {
    properties?: Record<string, Record<string, unknown>>;
  };
  const props = Object.entries(json.properties ?? {});
  const base = fc.record(Object.fromEntries(props.map(([k, s]) => [k, plausible(k, s)])), {
    requiredKeys: [],
  }) as fc.Arbitrary<Record<string, unknown>>;
  const keys = props.map(([k]) => k);
  const extraKey = fc.oneof(
    fc.constantFrom('merchantId', 'kind', '__proto__', 'constructor', 'isAdmin'),
    fc.string(),
  );
  return base.chain((b) =>
    fc.oneof(
      fc.constant(b),
      ...(keys.length
        ? [
            fc.constantFrom(...keys).map((k) => {
              const { [k]: _, ...rest } = b;
              return rest;
            }),
            fc.tuple(fc.constantFrom(...keys), bad).map(([k, v]) => ({ ...b, [k]: v })),
          ]
        : []),
      fc.tuple(extraKey, bad).map(([k, v]) => ({ ...b, [k]: v })),
    ),
  );
}

type Schema = Record<string, unknown>;
const letters = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.');

/**
 * A value its JSON Schema accepts (the subset zod writes): enums, constants, bounded numbers, strings by
 * pattern, format or length, arrays, objects with their required keys, unions. Fields the server looks up
 * (`id`, codes, passwords) take the plausible values above, so a valid input can reach a row or a rule.
 */
function acceptedBy(schema: Schema, name = ''): fc.Arbitrary<unknown> {
  if (['id', 'page', 'pageSize', 'code', 'password', 'oldPassword', 'newPassword', 'cursor'].includes(name))
    return plausible(name, schema);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union) return fc.oneof(...union.map((s) => acceptedBy(s, name)));
  if (Array.isArray(schema.type))
    return fc.oneof(...(schema.type as string[]).map((type) => acceptedBy({ ...schema, type }, name)));
  const min = (k: string) => schema[k] as number | undefined;
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({
        min: min('minimum') ?? (min('exclusiveMinimum') ?? 0) + 1,
        max: Math.min(min('maximum') ?? 1_000_000, (min('exclusiveMaximum') ?? 1_000_001) - 1),
      });
    case 'number':
      return fc.integer({
        min: Math.ceil(min('minimum') ?? 1),
        max: Math.floor(min('maximum') ?? 1_000_000),
      });
    case 'array':
      return fc.array(acceptedBy((schema.items ?? {}) as Schema, name), {
        minLength: min('minItems') ?? 0,
        maxLength: Math.max(min('minItems') ?? 0, Math.min(min('maxItems') ?? 3, 3)),
      });
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, acceptedBy(s, k)])), {
        requiredKeys: (schema.required ?? []) as string[],
      });
    }
    case 'string': {
      if (schema.format === 'date-time')
        return fc.constantFrom('2026-11-01T00:00:00Z', '2026-11-28T10:30:00+05:30');
      if (schema.format === 'date') return fc.constantFrom('2026-11-01', '2026-11-28');
      if (schema.format === 'email') return fc.constant('someone@example.com');
      if (schema.format === 'uri') return fc.constant('https://merchant.example.com/hook');
      const minLength = min('minLength') ?? 0;
      const maxLength = Math.max(minLength, Math.min(min('maxLength') ?? 24, 24));
      if (typeof schema.pattern === 'string')
        return fc
          .stringMatching(new RegExp(schema.pattern))
          .filter((v) => v.length >= minLength && v.length <= (min('maxLength') ?? 1e6));
      return fc.string({ unit: letters, minLength, maxLength });
    }
    default:
      return fc.oneof(fc.constant('abc'), fc.integer({ min: 1, max: 5 }));
  }
}

/** Valid inputs of endpoints whose rules JSON Schema cannot say (a repeated password, a number's kind). */
const examples: Record<string, unknown[]> = {
  'auth.resetPassword': [
    { username: 'admin', code: '123456', password: 'Passw0rd!y', confirmPassword: 'Passw0rd!y' },
  ],
  'auth.changePassword': [
    { oldPassword: 'Passw0rd!x', newPassword: 'Passw0rd!y', confirmPassword: 'Passw0rd!y' },
  ],
  'holderNumber.create': [
    { holderId: 1, kind: 'upi', value: 'asha@okicici', accountIds: [1] },
    { holderId: 2, kind: 'phone', value: '9876543210', accountIds: [] },
  ],
  'statementMapping.save': [{ name: 'Fuzzed', bankName: 'Some Bank', mapping: csvMapping }],
};

/** An input its schema accepts, or (rarely: a refinement the JSON Schema cannot say) one it refuses. */
function validInput(ep: Endpoint): fc.Arbitrary<unknown> {
  const json = schemaOf(ep.input, 'input') as Schema;
  const known = examples[ep.id];
  return known ? fc.oneof(acceptedBy(json), fc.constantFrom(...known)) : acceptedBy(json);
}

/** Anything at all: a random object with schema and random keys, or (as a JSON body) a non-object. */
function random(ep: Endpoint): fc.Arbitrary<unknown> {
  const keys = Object.keys((schemaOf(ep.input, 'input') as { properties?: object }).properties ?? {});
  const key = keys.length
    ? fc.oneof(fc.constantFrom(...keys), fc.string({ unit: 'binary', maxLength: 20 }))
    : fc.string();
  const object = fc.dictionary(key, bad, { maxKeys: 6 });
  return ep.method === 'GET' ? object : fc.oneof(object, bad);
}

// ---- the wire ---------------------------------------------------------------------------------

interface Wire {
  /** Path with query (GET) and body (POST) as sent. */
  path: string;
  body?: string;
  /** What the server parses from them, for the schema check. */
  seen: unknown;
}

function toWire(ep: Endpoint, input: unknown): Wire {
  if (ep.method === 'POST') {
    const body = JSON.stringify(input);
    return { path: `/api${ep.path}`, body, seen: JSON.parse(body) };
  }
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
    for (const item of Array.isArray(v) ? v : [v]) {
      qs.append(k, typeof item === 'string' ? item : String(JSON.stringify(item)));
    }
  }
  const query = qs.toString();
  // As the server reads it (server/http/app.ts queryInput): a repeated key becomes an array.
  const multi = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(query)) if (k !== '') multi.set(k, [...(multi.get(k) ?? []), v]);
  const seen: Record<string, unknown> = {};
  for (const [k, values] of multi) seen[k] = values.length === 1 ? values[0] : values;
  // auth.info takes its token from the query too and drops it before validation.
  if (ep.id === 'auth.info') delete seen.token;
  return { path: `/api${ep.path}${query ? `?${query}` : ''}`, seen };
}

const rejects = (ep: Endpoint, seen: unknown) => !ep.input.safeParse(seen).success;

function inputs(ep: Endpoint): fc.Arbitrary<{ input: unknown; wire: Wire }> {
  const arb = fc
    .oneof({ weight: 2, arbitrary: nearValid(ep) }, { weight: 1, arbitrary: random(ep) })
    .map((input) => ({ input, wire: toWire(ep, input) }));
  return writes(ep) ? arb.filter(({ wire }) => rejects(ep, wire.seen)) : arb;
}

// ---- checks -----------------------------------------------------------------------------------

type Answer = Awaited<ReturnType<TestServer['request']>>;

const published = documentChecker(openApiDocument());

/** The answer is one the published document describes: its status declared, its body valid. */
function expectDocumented(ep: Endpoint, res: Answer, what: string) {
  const body = (res.headers.get('content-type') ?? '').includes('application/json') ? res.json : undefined;
  expect(published(ep.method, `/api${ep.path}`, res.status, body), what).toBeNull();
}

function expectEnvelope(res: Answer, what: string) {
  expect(res.status, what).toBeLessThan(500);
  expect(res.headers.get('content-type') ?? '', what).toContain('application/json');
  const env = res.json as unknown as Record<string, unknown>;
  expect(env, `${what}: ${res.text.slice(0, 200)}`).toEqual(
    expect.objectContaining({ errno: expect.any(Number), errmsg: expect.any(String) }),
  );
  expect(Object.keys(env).sort(), what).toEqual(['data', 'errmsg', 'errno']);
  if (env.errno === errno.ok) expect(env.errmsg, what).toBe('');
  else expect((env.errmsg as string).length, what).toBeGreaterThan(0);
  expect(res.status, `${what}: the status beside errno ${env.errno}`).toBe(httpStatus[env.errno as Errno]);
}

function expectRejected(res: Answer, what: string) {
  if (res.status === 413) {
    expect(res.json.errno, what).toBe(errno.payloadTooLarge);
    return;
  }
  expect(res.status, what).toBe(422);
  expect(res.json.errno, `${what}: ${res.json.errmsg}`).toBe(errno.invalid);
  const fields = (res.json.data as { fields?: unknown[] } | null)?.fields;
  expect(Array.isArray(fields) && fields.length > 0, what).toBe(true);
}

type Kind = 'platform' | 'merchant';
/** Who holds `*` for an endpoint: the platform administrator, a merchant's owner, or either. */
const kindsFor = (ep: Endpoint): Kind[] =>
  ep.caller === 'merchant' ? ['merchant'] : ep.caller === 'both' ? ['platform', 'merchant'] : ['platform'];

describe.each(engines)('fuzzing every endpoint on %s', (engine) => {
  const numRuns = Number(process.env.FUZZ_RUNS) || (engine === 'pglite' ? 25 : 10);
  let s: TestServer;
  let admin: string;
  /** A token holding `*` of each kind. */
  const star: Record<Kind, string> = { platform: '', merchant: '' };
  /** A token of each kind holding no permission. */
  const none: Record<Kind, string> = { platform: '', merchant: '' };
  const starFor = (ep: Endpoint) => star[kindsFor(ep)[0]!];
  let fingerprint: () => Promise<Record<string, string>>;
  let baseline: Record<string, string>;

  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
    star.platform = admin;
    // Something in every table a list endpoint reads, so handlers have rows to trip over.
    const merchant = await s.makeMerchant();
    star.merchant = await s.login(merchant.ownerUsername, merchant.ownerPassword);
    none.platform = (await s.makeUser({ perms: [] })).token;
    none.merchant = (await s.makeUser({ kind: 'merchant', merchantId: merchant.id, perms: [] })).token;
    const someone = await s.makeUser({ perms: ['GET /admin/list'], email: 'someone@example.com' });
    const sent = await s.call(endpoints.auth.sendEmailCode, { username: someone.username, purpose: 'reset' });
    expect(sent.errno).toBe(errno.ok);
    fingerprint = await fingerprinter(s.db);
    baseline = await fingerprint();
  });
  afterAll(() => s.close());

  it.each(allEndpoints.map((ep) => [ep.id, ep] as const))(
    '%s: no 5xx, always the envelope, rejected input changes nothing',
    async (_id, ep) => {
      const sent: string[] = [];
      await fc.assert(
        fc.asyncProperty(inputs(ep), fc.constantFrom(...kindsFor(ep)), async ({ wire }, kind) => {
          const shown = `${kind} * ${ep.method} ${wire.path.slice(0, 300)} ${wire.body?.slice(0, 300) ?? ''}`;
          sent.push(shown);
          const rejected = rejects(ep, wire.seen);
          const asAdmin = await s.request(ep.method, wire.path, {
            rawBody: wire.body,
            token: star[kind],
            headers: json(wire),
          });
          // An export answers valid input with its file (a period in the future is an empty one); every
          // refusal is still the envelope.
          const file =
            ep.download && !(asAdmin.headers.get('content-type') ?? '').includes('application/json');
          if (file) {
            expect(rejected, `${shown}: a file for input the schema refuses`).toBe(false);
            expect(asAdmin.status, shown).toBe(200);
            expect(asAdmin.headers.get('content-disposition') ?? '', shown).toContain('attachment');
          } else expectEnvelope(asAdmin, shown);
          expectDocumented(ep, asAdmin, shown);
          if (rejected) expectRejected(asAdmin, shown);

          // A user of that kind holding no permission at all.
          if (ep.caller !== 'public' && ep.caller !== 'session') {
            const refused = await s.request(ep.method, wire.path, {
              rawBody: wire.body,
              token: none[kind],
              headers: json(wire),
            });
            expectEnvelope(refused, `no permission ${shown}`);
            expectDocumented(ep, refused, `no permission ${shown}`);
            expect(refused.json.errno, `no permission ${shown}`).toBe(errno.forbidden);
          }

          const anonymous = await s.request(ep.method, wire.path, {
            rawBody: wire.body,
            headers: json(wire),
          });
          expectEnvelope(anonymous, `anonymous ${shown}`);
          expectDocumented(ep, anonymous, `anonymous ${shown}`);
          if (ep.caller !== 'public')
            expect(anonymous.json.errno, `anonymous ${shown}`).toBe(errno.notSignedIn);
          else if (rejected) expectRejected(anonymous, `anonymous ${shown}`);
        }),
        { numRuns },
      );
      // One look at the whole database per endpoint keeps this cheap; a change names the tables and
      // lists the inputs sent (writers only ever got inputs their schema rejects).
      const now = await fingerprint();
      const changed = Object.keys(baseline).filter((t) => now[t] !== baseline[t]);
      expect(changed, `tables changed by ${ep.id}, after:\n${sent.join('\n')}`).toEqual([]);

      // The other method on the same path is not taken (unless it is another endpoint's): 405 with Allow.
      const other = ep.method === 'GET' ? 'POST' : 'GET';
      if (allEndpoints.some((e) => e.path === ep.path && e.method === other)) return;
      const wrong = await s.request(other, `/api${ep.path}`, {
        token: starFor(ep),
        ...(other === 'POST' ? { body: {} } : {}),
      });
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe(ep.method === 'GET' ? 'GET, HEAD' : 'POST');
      expect(wrong.json.errno).toBe(errno.methodNotAllowed);
    },
  );

  describe('inputs that once answered 500', () => {
    const valid = { username: 'nul_victim', nickname: 'Nick', password: 'Passw0rd!x' };
    const cases: Array<[Endpoint, Record<string, unknown>]> = [
      [endpoints.admin.list, { username: 'a\u0000b' }],
      [endpoints.role.list, { name: '\u0000' }],
      [endpoints.log.list, { username: '\u0000' }],
      [endpoints.log.list, { action: 'auth\u0000' }],
      [endpoints.log.list, { from: '0000-01-01T00:00:00Z' }],
      [endpoints.log.list, { to: '0000-12-31T23:59:59Z' }],
      [endpoints.log.list, { from: '0001-01-01T00:00:00+01:00' }],
      [endpoints.log.list, { cursor: b64('-100000-01-01T00:00:00.000Z|1') }],
      [endpoints.log.list, { cursor: b64('+275760-09-13T00:00:00.000Z|1') }],
      [endpoints.log.list, { cursor: b64('2020-01-01T00:00:00.000Z|99999999999999999999') }],
      [endpoints.mailOutbox.list, { to: '\u0000' }],
      [endpoints.mailOutbox.list, { cursor: b64('2020-01-01T00:00:00.000Z|9999999999') }],
      [endpoints.admin.create, { ...valid, nickname: 'a\u0000b' }],
      [endpoints.admin.update, { id: 1, nickname: '\u0000' }],
      [endpoints.role.create, { name: 'x\u0000' }],
      [endpoints.role.update, { id: 1, description: '\u0000' }],
      [endpoints.auth.updateProfile, { introduction: 'x\u0000' }],
      [endpoints.auth.login, { username: 'admin', password: 'x\u0000' }],
    ];
    it.each(cases.map(([ep, input]) => [ep.id, JSON.stringify(input), ep, input] as const))(
      '%s %s is refused as invalid (422), not a server error',
      async (_id, _shown, ep, input) => {
        const res = await s.call(ep, input, admin);
        expect(res.errno, res.errmsg).toBe(errno.invalid);
        expect(res.data.fields.length).toBeGreaterThan(0);
        expect(await fingerprint()).toEqual(baseline);
      },
    );

    it('still takes the extreme instants and cursors the database can hold', async () => {
      for (const input of [
        { from: '0001-01-01T00:00:00Z', to: '9999-12-31T23:59:59Z' },
        { from: '0001-01-01T00:00:00-01:00' },
        { cursor: b64('9999-12-31T23:59:59.999Z|9007199254740991') },
        { cursor: b64('0001-01-01T00:00:00.000Z|0') },
      ]) {
        const res = await s.call(endpoints.log.list, input, admin);
        expect(res.errno, `${JSON.stringify(input)}: ${res.errmsg}`).toBe(errno.ok);
      }
      const mail = await s.call(
        endpoints.mailOutbox.list,
        { cursor: b64('2020-01-01T00:00:00.000Z|2147483647') },
        admin,
      );
      expect(mail.errno, mail.errmsg).toBe(errno.ok);
    });
  });

  describe('raw bodies', () => {
    const posts = allEndpoints.filter((ep) => ep.method === 'POST');
    const logRows = async () => (await s.db.select({ id: operationLog.id }).from(operationLog)).length;

    it('answers errno 400 to a body that is not JSON, on every POST endpoint, and changes nothing', async () => {
      for (const ep of posts) {
        for (const rawBody of ['{', '{"a":1', "{'a':1}", '[1,]', 'nul', '{"a":1}}', '\u0000']) {
          const res = await s.request('POST', `/api${ep.path}`, {
            rawBody,
            token: starFor(ep),
            headers: { 'content-type': 'application/json' },
          });
          expectEnvelope(res, `${ep.id} ${rawBody}`);
          expectDocumented(ep, res, `${ep.id} ${rawBody}`);
          expect(res.status).toBe(400);
          expect(res.json.errno, `${ep.id} ${JSON.stringify(rawBody)}`).toBe(errno.badRequest);
        }
      }
      expect(await fingerprint()).toEqual(baseline);
    });

    it('refuses a valid body sent as a form or plain text (415) and writes nothing, not even the trail', async () => {
      const bodies: Record<string, unknown> = {
        'auth.login': { username: 'admin', password: 'Admin12345!' },
        'admin.create': { username: 'csrf_victim', nickname: 'x', password: 'Passw0rd!x' },
        'auth.updateProfile': { nickname: 'csrf' },
        'role.create': { name: 'csrf role', perms: ['*'] },
      };
      const before = await logRows();
      for (const ep of posts) {
        for (const type of [
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          '',
        ]) {
          const res = await s.request('POST', `/api${ep.path}`, {
            rawBody: JSON.stringify(bodies[ep.id] ?? {}),
            token: starFor(ep),
            headers: type ? { 'content-type': type } : {},
          });
          expect(res.status, `${ep.id} as ${type || 'no type'}`).toBe(415);
          expectEnvelope(res, ep.id);
          expectDocumented(ep, res, ep.id);
          expect(res.json.errno).toBe(errno.unsupportedMediaType);
        }
      }
      expect(await fingerprint()).toEqual(baseline);
      expect(await logRows()).toBe(before);
      // The admin's session survived the plain-text sign-out.
      expect((await s.call(endpoints.auth.info, {}, admin)).errno).toBe(errno.ok);
    });

    it('rejects a body over 1 MiB (413, errno 413) with or without a Content-Length, and accepts 1 MiB', async () => {
      const mib = 1024 * 1024;
      const sized = (n: number) => {
        const head = '{"introduction":"';
        return `${head}${'a'.repeat(n - head.length - 2)}"}`;
      };
      for (const ep of [endpoints.auth.updateProfile, endpoints.admin.create, endpoints.auth.login]) {
        for (const withLength of [true, false]) {
          const rawBody = sized(mib + 1);
          expect(Buffer.byteLength(rawBody)).toBe(mib + 1);
          const res = await s.request('POST', `/api${ep.path}`, {
            rawBody,
            token: starFor(ep),
            headers: {
              'content-type': 'application/json',
              ...(withLength ? { 'content-length': String(mib + 1) } : {}),
            },
          });
          expect(res.status, `${ep.id} ${withLength}`).toBe(413);
          expectEnvelope(res, ep.id);
          expectDocumented(ep, res, ep.id);
          expect(res.json.errno).toBe(errno.payloadTooLarge);
        }
      }
      const atLimit = await s.request('POST', `/api${endpoints.auth.updateProfile.path}`, {
        rawBody: sized(mib),
        token: admin,
        headers: { 'content-type': 'application/json' },
      });
      expect(atLimit.status).toBe(422);
      expect(atLimit.json.errno).toBe(errno.invalid);
      expect(await fingerprint()).toEqual(baseline);
    });
  });

  // Last: these change the database, which the checks above compare with their baseline.
  describe('writers given input their schema accepts, each as a throwaway user holding *', () => {
    const validRuns = Math.max(3, Math.round(numRuns / 5));
    it.each(allEndpoints.filter(writes).map((ep) => [ep.id, ep] as const))(
      '%s: no 5xx, every answer as the document says',
      async (_id, ep) => {
        const kind = kindsFor(ep)[0]!;
        const token =
          ep.caller === 'public'
            ? undefined
            : (await s.makeUser(kind === 'merchant' ? { kind, perms: ['*'] } : { perms: ['*'] })).token;
        let sent = 0;
        await fc.assert(
          fc.asyncProperty(validInput(ep), async (input) => {
            const wire = toWire(ep, input);
            // A rule JSON Schema cannot say (a refinement, a cross-field check): not a valid input.
            fc.pre(!rejects(ep, wire.seen));
            sent++;
            const shown = `${kind} throwaway * ${ep.method} ${wire.path} ${wire.body?.slice(0, 300) ?? ''}`;
            const res = await s.request(ep.method, wire.path, {
              rawBody: wire.body,
              token,
              headers: json(wire),
            });
            expectEnvelope(res, shown);
            expectDocumented(ep, res, shown);
          }),
          { numRuns: validRuns, endOnFailure: true, maxSkipsPerRun: 200 },
        );
        expect(sent, 'valid inputs sent').toBeGreaterThan(0);
      },
    );
  });
});

function json(wire: Wire): Record<string, string> {
  return wire.body === undefined ? {} : { 'content-type': 'application/json' };
}
