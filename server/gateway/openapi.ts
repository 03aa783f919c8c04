import { allGatewayEndpoints, callbackData, callbackSummary, callbackTypes } from '../../contract/gateway.ts';
import { refusalComponents, refusalResponses, schemaOf, successSchema } from '../http/openapi.ts';

let cached: Record<string, unknown> | undefined;

/** The four headers of a signed request (GATEWAY.md), each a scheme: a request carries all four. */
const signatureSchemes = {
  merchantId: { name: 'X-Merchant-Id', description: "The merchant's code." },
  timestamp: { name: 'X-Timestamp', description: 'Unix time in seconds, within 300 s of the server.' },
  nonce: {
    name: 'X-Nonce',
    description: '16–64 random characters, never reused by the merchant within the time window.',
  },
  signature: {
    name: 'X-Signature',
    description:
      "Lowercase hex HMAC-SHA256 under the merchant's API secret over `timestamp\\nnonce\\nMETHOD\\npathWithQuery\\nrawBody` (`rawBody` empty for a GET).",
  },
};

/** OpenAPI 3.1 for the merchant gateway, generated from contract/gateway.ts. */
export function gatewayOpenApi(): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const ep of allGatewayEndpoints) {
    const path = ep.path.replace(/:(\w+)/g, '{$1}');
    const input = schemaOf(ep.input, 'input');
    const pathParams = [...ep.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const query =
      ep.method === 'GET'
        ? Object.entries((input.properties ?? {}) as Record<string, unknown>).map(([name, schema]) => ({
            name,
            in: 'query',
            required: ((input.required ?? []) as string[]).includes(name),
            schema,
          }))
        : [];
    const success = successSchema(schemaOf(ep.output, 'output'));
    paths[path] = {
      ...paths[path],
      [ep.method.toLowerCase()]: {
        operationId: ep.id,
        summary: ep.summary,
        description: ep.description,
        tags: [ep.id.replace(/(Create|Get|Find)$/, '')],
        ...(pathParams.length + query.length ? { parameters: [...pathParams, ...query] } : {}),
        ...(ep.method === 'POST'
          ? { requestBody: { required: true, content: { 'application/json': { schema: input } } } }
          : {}),
        responses: {
          [String(ep.status)]: {
            description: 'Success: errno 0 and the data.',
            content: { 'application/json': { schema: success } },
          },
          ...(ep.status === 201
            ? {
                '200': {
                  description:
                    'A repeat of a create with the same merchantOrderNo and content: the original order, with `Idempotent-Replayed: true`.',
                  headers: { 'Idempotent-Replayed': { schema: { type: 'string', const: 'true' } } },
                  content: { 'application/json': { schema: success } },
                },
              }
            : {}),
          ...refusalResponses(ep.method, [202]),
        },
      },
    };
  }
  // The callbacks a merchant receives at its notifyUrl (GATEWAY.md), as OpenAPI 3.1 webhooks.
  const webhooks = Object.fromEntries(
    callbackTypes.map((type) => [
      type,
      {
        post: {
          operationId: `callback.${type}`,
          summary: callbackSummary[type],
          description:
            "POSTed to the notifyUrl, signed per Standard Webhooks with the merchant's webhook secret (`whsec_…`): verify `webhook-signature` over `webhook-id.webhook-timestamp.body` before reading it. Any 2xx within 15 s is delivered; anything else is retried on the platform's schedule with the same `webhook-id`.",
          tags: ['callbacks'],
          security: [],
          parameters: [
            ['webhook-id', 'The same on every retry of one event: act on it once.'],
            ['webhook-timestamp', 'Unix time in seconds of this attempt.'],
            [
              'webhook-signature',
              '`v1,` and the base64 HMAC-SHA256, space-separated when there are several.',
            ],
          ].map(([name, description]) => ({
            name,
            in: 'header',
            required: true,
            description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['type', 'data'],
                  additionalProperties: false,
                  properties: { type: { const: type }, data: schemaOf(callbackData[type], 'output') },
                },
              },
            },
          },
          responses: {
            '2XX': { description: 'Delivered: no retry.' },
            default: { description: 'Not delivered: retried later with the same `webhook-id`.' },
          },
        },
      },
    ]),
  );
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Paygate gateway API',
      version: '1',
      description:
        'Signed with HMAC-SHA256 (lowercase hex) under the merchant API secret over `timestamp\\nnonce\\nMETHOD\\npathWithQuery\\nrawBody`. A repeated create with the same merchantOrderNo and content answers the original order with `Idempotent-Replayed: true`; with other content, 409. Callbacks follow Standard Webhooks.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      {
        url: '{origin}',
        description: "The gateway's address (PORT 8080 by default).",
        variables: { origin: { default: 'http://localhost:8080' } },
      },
    ],
    tags: [
      { name: 'payin', description: 'Pay-in (collection) orders' },
      { name: 'payout', description: 'Payout orders' },
      { name: 'balance', description: "The merchant's wallets" },
      { name: 'callbacks', description: 'What the gateway sends to the merchant (Standard Webhooks)' },
    ],
    security: [Object.fromEntries(Object.keys(signatureSchemes).map((k) => [k, []]))],
    components: {
      securitySchemes: Object.fromEntries(
        Object.entries(signatureSchemes).map(([k, v]) => [k, { type: 'apiKey', in: 'header', ...v }]),
      ),
      responses: refusalComponents(paths),
    },
    paths,
    webhooks,
  };
  return cached;
}
