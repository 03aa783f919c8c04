/**
 * Both published documents pass the linters other people's tools use, with no errors: Redocly's
 * `recommended` rules and Spectral's `spectral:oas` (issue 29). Run from their npm packages on the very
 * documents the server answers. Warnings are printed, not failed.
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { gatewayOpenApi } from '../gateway/openapi.ts';
import { openApiDocument } from '../http/openapi.ts';

const documents = [
  ['admin API (/api/openapi.json)', openApiDocument()],
  ['gateway (/gateway/openapi.json)', gatewayOpenApi()],
] as const;

async function redocly(source: string): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`);
}

async function spectral(source: string): Promise<string[]> {
  const linter = new Spectral();
  linter.setRuleset(oas as never);
  const results = await linter.run(new Document(source, Json, 'openapi.json'));
  // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
  return results.map((r) => `${r.severity} ${r.code}: ${r.message} at ${r.path.join('.')}`);
}

describe.each(documents)('the %s document', (_name, doc) => {
  const source = JSON.stringify(doc, null, 2);

  it('would fail both linters with an answer that refers to nothing', async () => {
    const broken = structuredClone(doc) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const first = Object.values(broken.paths)[0]!;
    Object.values(first)[0]!.responses['418'] = { $ref: '#/components/responses/418' };
    const text = JSON.stringify(broken);
    expect((await redocly(text)).filter((p) => p.startsWith('error')).length).toBeGreaterThan(0);
    expect((await spectral(text)).filter((p) => p.startsWith('0 ')).length).toBeGreaterThan(0);
  });

  it("has no errors under Redocly's recommended rules", async () => {
    const shown = await redocly(source);
    const warnings = shown.filter((p) => p.startsWith('warn'));
    if (warnings.length) console.info(`Redocly warnings:\n${[...new Set(warnings)].slice(0, 20).join('\n')}`);
    expect(shown.filter((p) => p.startsWith('error'))).toEqual([]);
  });

  it("has no errors under Spectral's spectral:oas", async () => {
    const shown = await spectral(source);
    const warnings = shown.filter((p) => p.startsWith('1 '));
    if (warnings.length) console.info(`Spectral warnings:\n${warnings.slice(0, 20).join('\n')}`);
    expect(shown.filter((p) => p.startsWith('0 '))).toEqual([]);
  });
});
