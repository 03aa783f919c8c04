/**
 * The SDK cannot drift from the gateway: its types are the ones generated from the gateway's OpenAPI
 * document, its callback types are the contract's, its README prints the example the repo type-checks,
 * and its source stands alone (a merchant installs the sdk/ folder without the rest of the repo). The
 * generator itself is checked on the schema shapes a document may come to use.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callbackTypes as contractCallbackTypes } from '../../contract/gateway.ts';
import { gatewayOpenApi } from '../../server/gateway/openapi.ts';
import { generateTypes, typesPath } from '../scripts/generate.ts';
import { callbackTypes } from '../src/index.ts';

describe('the SDK and the gateway document', () => {
  it('has the types generated from the document (run `npx tsx sdk/scripts/generate.ts` when this fails)', () => {
    expect(readFileSync(typesPath, 'utf8')).toBe(generateTypes(gatewayOpenApi()));
  });

  it('knows every callback type the gateway sends', () => {
    expect([...callbackTypes].sort()).toEqual([...contractCallbackTypes].sort());
  });

  it('prints examples/quickstart.ts in the README (the example type-checks with the repo)', () => {
    const sdk = join(typesPath, '..', '..');
    const example = readFileSync(join(sdk, 'examples', 'quickstart.ts'), 'utf8')
      .replace(/^\/\*\*[\s\S]*?\*\/\n/, '')
      .replace(/\n\/\/ setup:[\s\S]*?\/\/ setup end\n/, '');
    const readme = readFileSync(join(sdk, 'README.md'), 'utf8');
    const block = /## Example[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(example);
  });

  it('imports nothing but its own files, node built-ins and standardwebhooks', () => {
    const dir = join(typesPath, '..');
    const pkg = JSON.parse(readFileSync(join(dir, '..', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(pkg.dependencies).toEqual({ standardwebhooks: '1.1.1' });
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        expect(
          /^\.\/[\w.-]+\.js$/.test(specifier!) ||
            specifier!.startsWith('node:') ||
            specifier === 'standardwebhooks',
          `${file} imports ${specifier}`,
        ).toBe(true);
      }
    }
  });
});

describe('the generator', () => {
  const doc = (op: Record<string, unknown>, components: Record<string, unknown> = {}) => ({
    openapi: '3.1.0',
    components: {
      parameters: { id: { name: 'id', in: 'path', required: true, schema: { type: 'string' } } },
      ...components,
    },
    paths: { '/gateway/v1/thing/{id}': { parameters: [{ $ref: '#/components/parameters/id' }], post: op } },
  });

  it('reads $refs, envelopes written with allOf, unions, arrays and open objects; ignores error answers', () => {
    const text = generateTypes(
      doc(
        {
          operationId: 'thingCreate',
          parameters: [{ name: 'dryRun', in: 'query', schema: { type: 'boolean' } }],
          requestBody: { $ref: '#/components/requestBodies/thing' },
          responses: {
            '400': { $ref: '#/components/responses/error' },
            '202': {
              description: 'Accepted',
              content: {
                'application/json': {
                  schema: {
                    allOf: [
                      { $ref: '#/components/schemas/Envelope' },
                      { type: 'object', properties: { data: { $ref: '#/components/schemas/Thing' } } },
                    ],
                  },
                },
              },
            },
          },
        },
        {
          requestBodies: {
            thing: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
                      kind: { const: 'a' },
                      "it's": { type: ['number', 'null'], description: 'A  quoted\nkey.' },
                    },
                    required: ['kind'],
                  },
                },
              },
            },
          },
          responses: { error: { description: 'Refused' } },
          schemas: {
            Envelope: { type: 'object', properties: { errno: { type: 'integer' } } },
            Thing: {
              type: 'object',
              properties: {
                state: { enum: ['one', 'two', null] },
                meta: { type: 'object', additionalProperties: { type: 'string' } },
                any: {},
              },
              required: ['state', 'meta', 'any'],
              additionalProperties: false,
            },
          },
        },
      ),
    );
    expect(text).toContain(
      [
        '/** `POST /gateway/v1/thing/{id}` (thingCreate): path parameters. */',
        'export interface ThingCreateParams {',
        '  id: string;',
        '}',
        '',
        '/** `POST /gateway/v1/thing/{id}` (thingCreate): query. */',
        'export interface ThingCreateQuery {',
        '  dryRun?: boolean;',
        '}',
        '',
        '/** `POST /gateway/v1/thing/{id}` (thingCreate): JSON body. */',
        'export interface ThingCreateBody {',
        '  tags?: (string | number)[];',
        "  kind: 'a';",
        '  /** A quoted key. */',
        "  'it\\'s'?: number | null;",
        '}',
        '',
        '/** `POST /gateway/v1/thing/{id}` (thingCreate): `data` of its 202 answer. */',
        'export interface ThingCreateData {',
        "  state: 'one' | 'two' | null;",
        '  meta: Record<string, string>;',
        '  any: unknown;',
        '}',
      ].join('\n'),
    );
    expect(text).toContain("thingCreate: { method: 'POST', path: '/gateway/v1/thing/{id}', status: 202 },");
  });

  it('writes a union too long for a line one member a line, as the formatter does', () => {
    const states = Array.from({ length: 12 }, (_, i) => `state_number_${i}`);
    const text = generateTypes(
      doc({
        operationId: 'thingGet',
        responses: {
          '200': {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    data: { type: 'object', properties: { s: { enum: states } }, required: ['s'] },
                  },
                },
              },
            },
          },
        },
      }),
    );
    expect(text).toContain(['  s:', ...states.map((s) => `    | '${s}'`)].join('\n'));
    expect(text).toContain("    | 'state_number_11';\n}");
  });
});
