/**
 * Answers held against the published documents (not a test file itself): whether an answer carries
 * exactly the keys its document lists (the gateway's OpenAPI document and the callbacks' declared data,
 * `callbackData`, read as JSON Schema), and whether its status and body hold to an OpenAPI document
 * (`documentChecker`).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type * as z from 'zod/mini';
import { schemaOf } from '../http/openapi.ts';

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

/** A zod schema as the gateway's OpenAPI document writes an answer's data. */
export const documentOf = (schema: z.ZodMiniType): JsonSchema => schemaOf(schema, 'output') as JsonSchema;

/**
 * Where `value`'s keys differ from what `schema` documents, at every depth: a key it carries that the
 * document does not list, or a key the document requires that it lacks. Empty when the document tells
 * the truth.
 */
export function undocumentedKeys(schema: JsonSchema, value: unknown, path = ''): string[] {
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices) {
    const each = choices.map((s) => undocumentedKeys(s, value, path));
    return each.find((d) => d.length === 0) ?? each.sort((a, b) => a.length - b.length)[0] ?? [];
  }
  if (Array.isArray(value))
    return schema.items ? value.flatMap((v, i) => undocumentedKeys(schema.items!, v, `${path}[${i}].`)) : [];
  if (value === null || typeof value !== 'object') return [];
  const at = (key: string) => `${path}${key}`;
  if (!schema.properties)
    return [`${at('')}: an object where the document says ${JSON.stringify(schema.type)}`];
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const documented = schema.properties[key];
    if (!documented) out.push(`${at(key)}: answered, not documented`);
    else out.push(...undocumentedKeys(documented, v, `${at(key)}.`));
  }
  for (const key of schema.required ?? [])
    if (!(key in value)) out.push(`${at(key)}: documented as required, not answered`);
  return out;
}

/**
 * Checks an answer against a published OpenAPI document, as a generated client or a fuzzer run from the
 * document would (issue 29): its status must be one the operation declares, and its JSON body must be
 * valid under that response's schema (JSON Schema 2020-12, formats included), with Ajv.
 */
export function documentChecker(doc: Record<string, unknown>) {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const paths = doc.paths as Record<
    string,
    Record<string, { responses: Record<string, Record<string, unknown>> }>
  >;
  const responses =
    (doc.components as { responses?: Record<string, Record<string, unknown>> }).responses ?? {};
  const compiled = new Map<string, ValidateFunction | null>();

  /** Why the answer breaks the document, or null when it holds. `path` as the document writes it. */
  return (method: string, path: string, status: number, body: unknown): string | null => {
    const op = paths[path]?.[method.toLowerCase()];
    if (!op) return `${method} ${path} is not in the document`;
    const declared = op.responses[String(status)];
    if (!declared) return `${method} ${path} answered ${status}, which the document does not declare`;
    const key = `${method} ${path} ${status}`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      const ref = declared.$ref as string | undefined;
      const response = ref ? responses[ref.replace('#/components/responses/', '')] : declared;
      const content = response?.content as Record<string, { schema?: Record<string, unknown> }> | undefined;
      const schema = content?.['application/json']?.schema;
      validate = schema ? ajv.compile(schema) : null;
      compiled.set(key, validate);
    }
    // A file (an export's CSV) has no JSON to check.
    if (!validate || validate(body)) return null;
    return `${method} ${path} ${status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 300)}`;
  };
}
