import * as z from 'zod/mini';
import { allErrnos } from '../../contract/errno.ts';
import { allGatewayEndpoints } from '../../contract/gateway.ts';

let cached: Record<string, unknown> | undefined;

const schemaOf = (s: z.ZodMiniType, io: 'input' | 'output') => {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
};

const headers = ['X-Merchant-Id', 'X-Timestamp', 'X-Nonce', 'X-Signature'].map((name) => ({
  name,
  in: 'header',
  required: true,
  schema: { type: 'string' },
}));

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
    paths[path] = {
      ...paths[path],
      [ep.method.toLowerCase()]: {
        operationId: ep.id,
        summary: ep.id,
        tags: [ep.id.replace(/(Create|Get|Find)$/, '')],
        parameters: [...headers, ...pathParams, ...query],
        ...(ep.method === 'POST'
          ? { requestBody: { required: true, content: { 'application/json': { schema: input } } } }
          : {}),
        responses: {
          [String(ep.status)]: {
            description: 'Success: errno 0 and the data.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    errno: { type: 'integer', enum: allErrnos },
                    errmsg: { type: 'string' },
                    data: schemaOf(ep.output, 'output'),
                  },
                },
              },
            },
          },
          '400': { description: 'Malformed request' },
          '401': { description: 'Signature, timestamp (±300 s) or nonce refused' },
          '403': { description: 'Merchant frozen, or a payout from outside the IP whitelist' },
          '404': { description: 'Unknown order' },
          '409': { description: 'The merchant order number exists with different content' },
          '422': {
            description:
              'Validation failed (data.fields), amount outside the merchant limits, or insufficient balance',
          },
          '429': { description: 'Too many requests' },
        },
      },
    };
  }
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Paygate gateway API',
      version: '1',
      description:
        'Signed with HMAC-SHA256 (lowercase hex) under the merchant API secret over `timestamp\\nnonce\\nMETHOD\\npathWithQuery\\nrawBody`. A repeated create with the same merchantOrderNo and content answers the original order with `Idempotent-Replayed: true`; with other content, 409. Callbacks follow Standard Webhooks.',
    },
    paths,
  };
  return cached;
}
