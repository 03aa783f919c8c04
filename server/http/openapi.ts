import * as z from 'zod/mini';
import { allErrnos } from '../../contract/errno.ts';
import { allEndpoints } from '../../contract/index.ts';
import { t } from './i18n.ts';

type JsonSchema = Record<string, unknown>;

function schemaOf(s: z.ZodMiniType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const envelopeSchema = (data: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['errno', 'errmsg', 'data'],
  properties: { errno: { type: 'integer', enum: allErrnos }, errmsg: { type: 'string' }, data },
});

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
      responses: {
        '200': ep.download
          ? {
              description:
                'The file, as an attachment (`Content-Disposition`), in the format asked for: CSV (UTF-8 with a byte order mark) or XLSX. A refusal before the file begins (validation, permission, …) is the envelope instead, as `application/json`.',
              content: {
                'text/csv': { schema: { type: 'string' } },
                'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
                  schema: { type: 'string', format: 'binary' },
                },
                'application/json': { schema: envelopeSchema({ type: 'null' }) },
              },
            }
          : {
              description:
                'The envelope; `errno` 0 carries `data`, any other errno a message in the requested language.',
              content: { 'application/json': { schema: envelopeSchema(schemaOf(ep.output, 'output')) } },
            },
      },
    };
    if (ep.caller !== 'public') op.security = [{ adminToken: [] }];
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
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Paygate console admin API',
      version: '1',
      description:
        'Every answer is `{errno, errmsg, data}` with HTTP 200 for business outcomes. Send `Accept-Language: zh-CN` for Chinese messages. State changes are POSTs with a JSON body and the `admin-token` header.',
    },
    servers: [{ url: '/' }],
    components: { securitySchemes: { adminToken: { type: 'apiKey', in: 'header', name: 'admin-token' } } },
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
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
  const groups = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = (op.tags as string[])[0] ?? 'other';
      const responses = op.responses as Record<string, { content: Record<string, { schema: unknown }> }>;
      const input =
        method === 'get'
          ? op.parameters
          : (op.requestBody as { content: Record<string, { schema: unknown }> }).content['application/json']!
              .schema;
      // The success answer: 200, or 201 where the gateway creates (a pay-in, a payout).
      const success = Object.entries(responses).find(([code]) => code.startsWith('2'))?.[1];
      const schema = success?.content['application/json']?.schema as
        | { properties?: { data?: unknown } }
        | undefined;
      const out = schema?.properties?.data ?? schema ?? null;
      const html = `<section id="${escapeHtml(String(op.operationId))}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${escapeHtml(String(op.summary ?? op.operationId))}</p>${op.description ? `<p class="d">${escapeHtml(String(op.description)).replace(/\n/g, '<br>')}</p>` : ''}
<details><summary>${method === 'get' ? 'Query parameters' : 'Request body'}</summary><pre>${escapeHtml(JSON.stringify(input, null, 2))}</pre></details>
<details><summary>data</summary><pre>${escapeHtml(JSON.stringify(out, null, 2))}</pre></details></section>`;
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
section{border-top:1px solid #e4e7eb;padding:.5rem 0}.m{font-weight:600;padding:0 .4rem;border-radius:3px;color:#fff}
.get{background:#2f80ed}.post{background:#27ae60}.d{color:#52606d}h3{margin:.25rem 0}</style></head>
<body><h1>${escapeHtml(info.title)}</h1><p>${escapeHtml(info.description)}</p><p><a href="openapi.json">openapi.json</a></p><nav>${toc}</nav>${body}</body></html>`;
}
