/**
 * Writes sdk/src/types.ts from the gateway's OpenAPI document: for each operation, its JSON body, its
 * query and path parameters, and the `data` of its first 2xx answer, as TypeScript types, and a table of
 * each operation's method, path and success status. Only those parts of the document are read, so
 * additions elsewhere (error answers, security schemes, servers, tags) change nothing here.
 *
 *   npx tsx sdk/scripts/generate.ts                 from server/gateway/openapi.ts (in the repo)
 *   npx tsx sdk/scripts/generate.ts --url http://127.0.0.1:8080/gateway/openapi.json
 *   npx tsx sdk/scripts/generate.ts --check         exits 1 when types.ts differs from the document
 *
 * The JSON Schema subset written: type (one or several, `null` among them), enum, const, properties with
 * required, additionalProperties, items, anyOf/oneOf (union), allOf (intersection), local `$ref`s.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Schema = Record<string, unknown>;
type Doc = Record<string, unknown>;

/** Where the generated file lives. */
export const typesPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'types.ts');

const methods = ['get', 'put', 'post', 'delete', 'patch'] as const;
const lineWidth = 110;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Follows a local `$ref` (`#/components/…`) to what it names; anything else is answered as is. */
function resolve(doc: Doc, value: unknown, seen: string[] = []): unknown {
  if (!isObject(value) || typeof value.$ref !== 'string') return value;
  const ref = value.$ref;
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
  if (seen.includes(ref)) throw new Error(`recursive $ref: ${ref}`);
  let target: unknown = doc;
  for (const part of ref.slice(2).split('/')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    target = isObject(target) ? target[key] : undefined;
  }
  if (target === undefined) throw new Error(`$ref not found: ${ref}`);
  return resolve(doc, target, [...seen, ref]);
}

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : quote(name));
const literal = (v: unknown) => (typeof v === 'string' ? quote(v) : JSON.stringify(v));
const pascal = (id: string) =>
  id.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, _s, c: string) => c.toUpperCase());

/** A JSDoc line from a schema's description and constraints, or nothing. */
function docOf(schema: Schema): string | undefined {
  const parts: string[] = [];
  if (typeof schema.description === 'string') parts.push(schema.description.trim().replace(/\s+/g, ' '));
  const rules: string[] = [];
  if (typeof schema.pattern === 'string') rules.push(`pattern \`${schema.pattern}\``);
  if (typeof schema.format === 'string') rules.push(`format ${schema.format}`);
  for (const k of ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'] as const)
    if (typeof schema[k] === 'number') rules.push(`${k} ${schema[k]}`);
  if (rules.length) parts.push(`${rules.join(', ')}.`);
  return parts.length ? parts.join(' ').replace(/\*\//g, '*\\/') : undefined;
}

/** The alternatives of a union, each written on one line; one member alone is the type itself. */
function union(members: string[]): string[] {
  const unique = [...new Set(members)];
  return unique.includes('unknown') ? ['unknown'] : unique;
}

/**
 * A schema as a TypeScript type, written at `indent` (the column of the line it starts on). Objects with
 * properties are written over several lines, everything else on one.
 */
function typeOf(doc: Doc, raw: unknown, indent: number): string {
  const schema = resolve(doc, raw);
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (!isObject(schema)) throw new Error(`not a schema: ${JSON.stringify(schema)}`);
  const one = (s: unknown) => typeOf(doc, s, indent);
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal)).join(' | ');
  for (const k of ['anyOf', 'oneOf'] as const)
    if (Array.isArray(schema[k])) return union(schema[k].map((s) => wrap(one(s)))).join(' | ');
  if (Array.isArray(schema.allOf)) return schema.allOf.map((s) => wrap(one(s))).join(' & ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (!types.length) return isObject(schema.properties) ? objectOf(doc, schema, indent) : 'unknown';
  return union(
    types.map((t) => {
      switch (t) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array':
          return `${wrap(one(schema.items))}[]`;
        case 'object':
          return objectOf(doc, schema, indent);
        default:
          throw new Error(`unsupported type ${String(t)}`);
      }
    }),
  ).join(' | ');
}

/** Parenthesises a union or intersection where it becomes part of a larger type. */
const wrap = (t: string) => (/[|&]/.test(t) && !t.includes('\n') ? `(${t})` : t);

function objectOf(doc: Doc, schema: Schema, indent: number): string {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const extra = schema.additionalProperties;
  const names = Object.keys(properties);
  const rest =
    extra === false
      ? undefined
      : extra === undefined || extra === true
        ? 'unknown'
        : typeOf(doc, extra, indent);
  if (!names.length) return `Record<string, ${rest ?? 'never'}>`;
  const pad = ' '.repeat(indent + 2);
  const lines = ['{'];
  for (const name of names) {
    const prop = resolve(doc, properties[name]);
    const comment = isObject(prop) ? docOf(prop) : undefined;
    if (comment) lines.push(`${pad}/** ${comment} */`);
    const head = `${pad}${key(name)}${required.includes(name) ? '' : '?'}:`;
    lines.push(...member(head, typeOf(doc, prop, indent + 2), indent + 2));
  }
  // Properties the document leaves open are not typed as an index signature: a merchant reads the named
  // ones, and `unknown` would make every named one `unknown` too.
  lines.push(`${' '.repeat(indent)}}`);
  return lines.join('\n');
}

/** `head type;`, or, past the line width, a union with one member a line as the formatter writes it. */
function member(head: string, type: string, indent: number): string[] {
  if (type.includes('\n') || `${head} ${type};`.length <= lineWidth) return [`${head} ${type};`];
  const alternatives = splitUnion(type);
  if (alternatives.length < 2) return [`${head} ${type};`];
  const pad = ' '.repeat(indent + 2);
  return [head, ...alternatives.map((a, i) => `${pad}| ${a}${i === alternatives.length - 1 ? ';' : ''}`)];
}

/**
 * Walks a written type's characters outside quoted strings, each with the bracket depth after it is read;
 * stops when `visit` answers true.
 */
function scan(type: string, visit: (i: number, c: string, depth: number) => boolean | undefined): void {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < type.length; i++) {
    const c = type[i]!;
    if (quoted) {
      if (c === '\\') i++;
      else if (c === "'") quoted = false;
      continue;
    }
    if (c === "'") quoted = true;
    else if ('([<{'.includes(c)) depth++;
    else if (')]>}'.includes(c)) depth--;
    if (visit(i, c, depth)) return;
  }
}

/** The top-level members of a one-line union (outside parentheses, brackets and quotes). */
function splitUnion(type: string): string[] {
  const parts: string[] = [];
  let start = 0;
  scan(type, (i, _c, depth) => {
    if (depth === 0 && type.startsWith(' | ', i)) {
      parts.push(type.slice(start, i));
      start = i + 3;
    }
    return undefined;
  });
  parts.push(type.slice(start));
  return parts;
}

/** Whether a written type is one object type (`{ … }`), not a union or intersection of some. */
function isOneObject(type: string): boolean {
  if (!type.startsWith('{')) return false;
  let closedAt = -1;
  scan(type, (i, c, depth) => {
    if (c === '}' && depth === 0) closedAt = i;
    return closedAt >= 0;
  });
  return closedAt === type.length - 1;
}

/** The schema of `data` in an answer's envelope (through `$ref`s and `allOf` parts), if it has one. */
function dataOf(doc: Doc, raw: unknown): unknown {
  const schema = resolve(doc, raw);
  if (!isObject(schema)) return undefined;
  if (isObject(schema.properties) && 'data' in schema.properties) return schema.properties.data;
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const found = dataOf(doc, part);
    if (found !== undefined) return found;
  }
  return undefined;
}

interface Operation {
  id: string;
  method: string;
  path: string;
  status: number;
  body?: unknown;
  query: Schema;
  params: Schema;
  data: unknown;
}

/** The operations of the document, by operationId, with the parts the SDK reads. */
function operationsOf(doc: Doc): Operation[] {
  const found: Operation[] = [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = resolve(doc, rawItem);
    if (!isObject(item)) continue;
    for (const method of methods) {
      const op = item[method];
      if (!isObject(op)) continue;
      if (typeof op.operationId !== 'string') throw new Error(`${method} ${path}: no operationId`);
      const params = { path: {} as Schema, query: {} as Schema, required: { path: [], query: [] } };
      for (const rawParam of [
        ...(Array.isArray(item.parameters) ? item.parameters : []),
        ...(Array.isArray(op.parameters) ? op.parameters : []),
      ]) {
        const p = resolve(doc, rawParam);
        if (!isObject(p) || (p.in !== 'path' && p.in !== 'query') || typeof p.name !== 'string') continue;
        const schema = isObject(p.schema) ? { ...p.schema } : {};
        if (typeof p.description === 'string' && !schema.description) schema.description = p.description;
        params[p.in][p.name] = schema;
        if (p.required === true || p.in === 'path') (params.required[p.in] as string[]).push(p.name);
      }
      const object = (properties: Schema, required: string[]): Schema => ({
        type: 'object',
        properties,
        required,
        additionalProperties: false,
      });
      const requestBody = resolve(doc, op.requestBody);
      const bodyContent = isObject(requestBody) && isObject(requestBody.content) ? requestBody.content : {};
      const bodyMedia = bodyContent['application/json'];
      const responses = isObject(op.responses) ? op.responses : {};
      // A create answers 201; its 200 is the idempotent replay of the same order.
      const successes = Object.keys(responses)
        .filter((code) => /^2\d\d$/.test(code))
        .sort();
      const success = successes.includes('201') ? '201' : successes[0];
      if (!success) throw new Error(`${op.operationId}: no 2xx answer`);
      const answer = resolve(doc, responses[success]);
      const media =
        isObject(answer) && isObject(answer.content) ? answer.content['application/json'] : undefined;
      found.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        status: Number(success),
        body: isObject(bodyMedia) ? bodyMedia.schema : undefined,
        query: object(params.query, params.required.query),
        params: object(params.path, params.required.path),
        data: isObject(media) ? dataOf(doc, media.schema) : undefined,
      });
    }
  }
  return found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** types.ts for the document `doc`. */
export function generateTypes(doc: Doc): string {
  const out: string[] = [
    "// Generated by sdk/scripts/generate.ts from the gateway's OpenAPI document (GET /gateway/openapi.json).",
    '// Do not edit: run `npx tsx sdk/scripts/generate.ts` after the document changes.',
    '',
  ];
  /** Type text already written, by the name it was written under: a repeat becomes an alias. */
  const written = new Map<string, string>();
  const emit = (name: string, schema: unknown, what: string) => {
    const type = typeOf(doc, schema, 0);
    out.push(`/** ${what} */`);
    const earlier = written.get(type);
    if (earlier) out.push(`export type ${name} = ${earlier};`);
    else if (isOneObject(type)) out.push(`export interface ${name} ${type}`);
    else out.push(...member(`export type ${name} =`, type, 0));
    if (!earlier) written.set(type, name);
    out.push('');
  };
  const ops = operationsOf(doc);
  for (const op of ops) {
    const name = pascal(op.id);
    const where = `\`${op.method} ${op.path}\` (${op.id})`;
    if (Object.keys(op.params.properties as Schema).length)
      emit(`${name}Params`, op.params, `${where}: path parameters.`);
    if (Object.keys(op.query.properties as Schema).length) emit(`${name}Query`, op.query, `${where}: query.`);
    if (op.body !== undefined) emit(`${name}Body`, op.body, `${where}: JSON body.`);
    emit(`${name}Data`, op.data, `${where}: \`data\` of its ${op.status} answer.`);
  }
  // The callbacks (the document's webhooks): each one's body `{type, data}`, and their union.
  const webhooks = isObject(doc.webhooks) ? doc.webhooks : {};
  const callbacks: string[] = [];
  const events: string[] = [];
  for (const [event, rawItem] of Object.entries(webhooks).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const post = isObject(rawItem) ? resolve(doc, rawItem.post) : undefined;
    const requestBody = isObject(post) ? resolve(doc, post.requestBody) : undefined;
    const content = isObject(requestBody) && isObject(requestBody.content) ? requestBody.content : {};
    const media = content['application/json'];
    if (!isObject(media)) throw new Error(`callback ${event}: no JSON body`);
    const name = `${pascal(event)}Callback`;
    const body = resolve(doc, media.schema);
    const data = isObject(body) && isObject(body.properties) ? body.properties.data : undefined;
    // The data an answer already types (a pay-in as `getPayin` answers it) is named, not written again.
    const known = data === undefined ? undefined : written.get(typeOf(doc, data, 0));
    if (known) {
      out.push(`/** The \`${event}\` callback's body: \`data\` is ${known}. */`);
      out.push(`export interface ${name} {`, `  type: ${quote(event)};`, `  data: ${known};`, '}', '');
    } else emit(name, media.schema, `The \`${event}\` callback's body.`);
    callbacks.push(name);
    events.push(event);
  }
  if (callbacks.length) {
    out.push("/** Every callback type the gateway sends (its document's webhooks). */");
    out.push('export const callbackTypes = [', ...events.map((e) => `  ${quote(e)},`), '] as const;');
    out.push('');
    out.push('/** Any callback the gateway sends, told apart by `type`. */');
    out.push(...member('export type AnyCallback =', callbacks.join(' | '), 0));
    out.push('');
  }
  out.push("/** Each operation's method, path and success status, as the document declares them. */");
  out.push('export const operations = {');
  for (const op of ops) {
    const fields = [`method: ${quote(op.method)}`, `path: ${quote(op.path)}`, `status: ${op.status}`];
    const line = `  ${key(op.id)}: { ${fields.join(', ')} },`;
    if (line.length <= lineWidth) out.push(line);
    else out.push(`  ${key(op.id)}: {`, ...fields.map((f) => `    ${f},`), '  },');
  }
  out.push('} as const;', '');
  return out.join('\n');
}

async function main(argv: string[]) {
  const at = argv.indexOf('--url');
  let doc: Doc;
  if (at >= 0) {
    const url = argv[at + 1];
    if (!url) throw new Error('--url needs the address of /gateway/openapi.json');
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    doc = (await res.json()) as Doc;
  } else {
    doc = (await import('../../server/gateway/openapi.ts')).gatewayOpenApi();
  }
  const text = generateTypes(doc);
  if (argv.includes('--check')) {
    const same = readFileSync(typesPath, 'utf8') === text;
    console.log(
      same ? 'sdk/src/types.ts matches the document' : 'sdk/src/types.ts differs from the document',
    );
    process.exitCode = same ? 0 : 1;
    return;
  }
  writeFileSync(typesPath, text);
  console.log(`wrote ${typesPath}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
