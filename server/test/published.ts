/**
 * Checks an answer against a published OpenAPI document, as a generated client or a fuzzer run from the
 * document would (issue 29): its status must be one the operation declares, and its JSON body must be
 * valid under that response's schema (JSON Schema 2020-12, formats included), with Ajv.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

export function documentChecker(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const paths = doc.paths as Record<string, Record<string, { responses: Record<string, Json> }>>;
  const responses = (doc.components as { responses?: Record<string, Json> }).responses ?? {};
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
      const content = response?.content as Record<string, { schema?: Json }> | undefined;
      const schema = content?.['application/json']?.schema;
      validate = schema ? ajv.compile(schema) : null;
      compiled.set(key, validate);
    }
    // A file (an export's CSV) has no JSON to check.
    if (!validate || validate(body)) return null;
    return `${method} ${path} ${status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 300)}`;
  };
}
