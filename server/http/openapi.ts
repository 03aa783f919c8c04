import * as z from 'zod/mini';
import { allErrnos, errno, httpStatus } from '../../contract/errno.ts';
import { allEndpoints } from '../../contract/index.ts';
import { t } from './i18n.ts';

type JsonSchema = Record<string, unknown>;

export function schemaOf(s: z.ZodMiniType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** The envelope of a success: errno 0, no message, the operation's data. */
export const successSchema = (data: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['errno', 'errmsg', 'data'],
  additionalProperties: false,
  properties: { errno: { const: errno.ok }, errmsg: { const: '' }, data },
});

const reasons: Record<number, string> = {
  202: 'Not run: recorded as a request a second platform user approves (errno 1043, `data.approvalId`).',
  400: 'The request could not be read (a body that is not JSON).',
  401: 'Not signed in, or the session expired (errno 501/506: sign in again); on the sign-in steps a wrong password, code or ticket, or a second step still needed (1002). On the gateway: the signature, timestamp or nonce was refused.',
  403: "The caller's permission, kind or state does not allow this.",
  404: 'Not found (or not yours: never told apart).',
  409: 'The state of what the request names does not allow it now (taken, already done, waiting elsewhere).',
  413: "The body is over the endpoint's limit.",
  415: 'A write must send `Content-Type: application/json`.',
  422: 'The input was refused: errno 422 lists the fields (`data.fields`, each `{path, message}` in the requested language); other errnos are rules the request breaks as asked.',
  429: 'Too many requests, or a code asked for too soon: wait and try again.',
  500: 'The server failed; nothing was applied.',
  503: 'The database is unavailable for a moment: retry after `Retry-After` seconds (a write cut off may have been applied: retry idempotently).',
};

const fieldErrors: JsonSchema = {
  type: 'object',
  required: ['fields'],
  properties: {
    fields: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

/**
 * The envelope of an answer with HTTP `status`: one of the errnos that status stands beside
 * (`httpStatus`, contract/errno.ts), a message, and data (the fields of a refused input for 422).
 */
function refusalSchema(status: number): JsonSchema {
  const codes = allErrnos.filter((code) => httpStatus[code] === status);
  return {
    type: 'object',
    required: ['errno', 'errmsg', 'data'],
    additionalProperties: false,
    properties: {
      errno: codes.length === 1 ? { const: codes[0] } : { type: 'integer', enum: codes },
      errmsg: { type: 'string', minLength: 1 },
      data: status === 422 ? { anyOf: [fieldErrors, { type: 'object' }, { type: 'null' }] } : {},
    },
    ...(status === 422
      ? {
          if: { properties: { errno: { const: errno.invalid } } },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a promise
          then: { properties: { data: fieldErrors } },
        }
      : {}),
  };
}

/** Every status other than success an operation may answer (405 belongs to a path, not an operation). */
const refusalStatuses = [...new Set(Object.values(httpStatus))]
  .filter((s) => s !== 200 && s !== 405)
  .sort((a, b) => a - b);

/**
 * The refusals an operation may answer, as references to `#/components/responses/<status>`: a read is
 * never refused for its body (400, 413, 415) nor sent for approval (202), nor is anything of `except`.
 */
export function refusalResponses(
  method: 'GET' | 'POST',
  except: readonly number[] = [],
): Record<string, JsonSchema> {
  const bodyOnly = new Set([202, 400, 413, 415]);
  return Object.fromEntries(
    refusalStatuses
      .filter((status) => !except.includes(status) && (method === 'POST' || !bodyOnly.has(status)))
      .map((status) => [String(status), { $ref: `#/components/responses/${status}` }]),
  );
}

/** The responses the operations refer to, each the envelope with its errnos (`refusalSchema`). */
export function refusalComponents(
  paths: Record<string, Record<string, unknown>>,
): Record<string, JsonSchema> {
  const used = new Set(
    Object.values(paths).flatMap((ops) =>
      Object.values(ops).flatMap((op) => Object.keys((op as { responses: object }).responses)),
    ),
  );
  return Object.fromEntries(
    refusalStatuses
      .filter((status) => used.has(String(status)))
      .map((status) => [
        String(status),
        {
          description: reasons[status] ?? 'Refused.',
          ...(status === 503 ? { headers: { 'Retry-After': { schema: { type: 'integer' } } } } : {}),
          content: { 'application/json': { schema: refusalSchema(status) } },
        },
      ]),
  );
}

const server = {
  url: '{origin}',
  description: 'Where the server runs: its own address (PORT 8080 by default).',
  variables: { origin: { default: 'http://localhost:8080' } },
};

let cached: JsonSchema | undefined;

/** OpenAPI 3.1 for the admin API, generated from the endpoint registry. */
export function openApiDocument(): JsonSchema {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const ep of allEndpoints) {
    const input = schemaOf(ep.input, 'input');
    const op: Record<string, unknown> = {
      operationId: ep.id,
      summary: t('en', `endpoints.${ep.id}`),
      description: `${t('zh_CN', `endpoints.${ep.id}`)}\n\nCaller: ${ep.caller}${
        ep.caller === 'public' || ep.caller === 'session'
          ? ''
          : ep.caller === 'superAdmin'
            ? '; super administrators (`*`) only, no role grants it'
            : `; permission \`${ep.permission}\``
      }.`,
      tags: [ep.group],
      'x-caller': ep.caller,
      'x-permission': ep.permission,
      security: ep.caller === 'public' ? [] : [{ adminToken: [] }],
      responses: {
        '200': ep.download
          ? {
              description:
                'The file, as an attachment (`Content-Disposition`), in the format asked for: CSV (UTF-8 with a byte order mark) or XLSX. A refusal before the file begins is the envelope with its status.',
              content: {
                'text/csv': { schema: { type: 'string' } },
                'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
                  schema: { type: 'string', contentMediaType: 'application/octet-stream' },
                },
              },
            }
          : {
              description: 'Done: errno 0 and the data.',
              content: { 'application/json': { schema: successSchema(schemaOf(ep.output, 'output')) } },
            },
        ...refusalResponses(ep.method),
      },
    };
    if (ep.method === 'GET') {
      const props = (input.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((input.required ?? []) as string[]);
      op.parameters = Object.entries(props).map(([name, schema]) => ({
        name,
        in: 'query',
        required: required.has(name),
        schema,
      }));
    } else {
      op.requestBody = { required: true, content: { 'application/json': { schema: input } } };
    }
    paths[`/api${ep.path}`] = { ...paths[`/api${ep.path}`], [ep.method.toLowerCase()]: op };
  }
  const groups = [...new Set(allEndpoints.map((ep) => ep.group))];
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Paygate console admin API',
      version: '1',
      description:
        'Every answer is the envelope `{errno, errmsg, data}`; its HTTP status says the same (200 only for success, see each operation). Send `Accept-Language: zh-CN` for Chinese messages. State changes are POSTs with a JSON body and the `admin-token` header.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [server],
    tags: groups.map((name) => ({
      name,
      description: `${t('en', `permGroups.${name}`)} · ${t('zh_CN', `permGroups.${name}`)}`,
    })),
    components: {
      securitySchemes: {
        adminToken: {
          type: 'apiKey',
          in: 'header',
          name: 'admin-token',
          description: 'The token `POST /api/auth/login` answers.',
        },
      },
      responses: refusalComponents(paths),
    },
    paths,
  };
  return cached;
}

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );

/** A readable reference page generated from an OpenAPI document (no scripts, no external assets). */
export function docsPage(doc: JsonSchema): string {
  const info = doc.info as { title: string; description: string };
  // The paths, then the callbacks the API sends (`webhooks`, keyed by the event's name).
  const paths = { ...(doc.paths as object), ...(doc.webhooks as object | undefined) } as Record<
    string,
    Record<string, Record<string, unknown>>
  >;
  const callbacks = new Set(Object.keys((doc.webhooks as object | undefined) ?? {}));
  const groups = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = (op.tags as string[])[0] ?? 'other';
      const responses = op.responses as Record<string, { content?: Record<string, { schema: unknown }> }>;
      const input =
        method === 'get'
          ? (op.parameters ?? [])
          : (op.requestBody as { content: Record<string, { schema: unknown }> }).content['application/json']!
              .schema;
      // The success answer: 200, or 201 where the gateway creates (a pay-in, a payout); a callback's 2XX has none.
      const success = Object.entries(responses).find(([code]) => code.startsWith('2'))?.[1];
      const schema = success?.content?.['application/json']?.schema as
        | { properties?: { data?: unknown } }
        | undefined;
      const out = schema?.properties?.data ?? schema ?? null;
      const html = `<section id="${escapeHtml(String(op.operationId))}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${escapeHtml(String(op.summary ?? op.operationId))}</p>${op.description ? `<p class="d">${escapeHtml(String(op.description)).replace(/\n/g, '<br>')}</p>` : ''}
<details><summary>${method === 'get' ? 'Query parameters' : 'Request body'}</summary><pre>${escapeHtml(JSON.stringify(input, null, 2))}</pre></details>
${out === null ? '' : `<details><summary>data</summary><pre>${escapeHtml(JSON.stringify(out, null, 2))}</pre></details>`}
${callbacks.has(path) ? '' : `<p class="d">HTTP ${Object.keys(responses).join(', ')}: the envelope, its errno beside the status (see <a href="openapi.json">openapi.json</a>).</p>`}</section>`;
      groups.set(tag, [...(groups.get(tag) ?? []), html]);
    }
  }
  const toc = [...groups.keys()].map((g) => `<a href="#g-${escapeHtml(g)}">${escapeHtml(g)}</a>`).join(' · ');
  const body = [...groups.entries()]
    .map(([g, items]) => `<h2 id="g-${escapeHtml(g)}">${escapeHtml(g)}</h2>${items.join('\n')}`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(info.title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font:14px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1f2933}
code,pre{font:12px/1.4 ui-monospace,monospace}pre{background:#f4f6f8;padding:.75rem;overflow:auto}
section{border-top:1px solid #e4e7eb;padding:.5rem 0}p{overflow-wrap:anywhere}.m{font-weight:600;padding:0 .4rem;border-radius:3px;color:#fff}
.get{background:#2f80ed}.post{background:#27ae60}.d{color:#52606d}h3{margin:.25rem 0}</style></head>
<body><h1>${escapeHtml(info.title)}</h1><p>${escapeHtml(info.description)}</p><p><a href="openapi.json">openapi.json</a></p><nav>${toc}</nav>${body}</body></html>`;
}
