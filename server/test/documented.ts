/**
 * Whether an answer carries exactly the keys its document lists (not a test file itself): the gateway's
 * OpenAPI document and the callbacks' declared data (`callbackData`) are read as JSON Schema.
 */
import * as z from 'zod/mini';

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

/** A zod schema as the gateway's OpenAPI document writes an answer's data. */
export const documentOf = (schema: z.ZodMiniType): JsonSchema =>
  z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;

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
