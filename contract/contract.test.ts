/**
 * The endpoint registry against everything that must stay in step with it: handlers, locale texts,
 * the OpenAPI document and the permission catalogue. No database.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import en from '../locales/en.json' with { type: 'json' };
import zh from '../locales/zh_CN.json' with { type: 'json' };
import { openApiDocument } from '../server/http/openapi.ts';
import { builtinRoles } from '../server/modules/role/builtin.ts';
import { catalogueFor } from '../server/modules/role/catalogue.ts';
import { routes } from '../server/routes.ts';
import { allEndpoints, allErrnos, endpoints, errno, needsPermission } from './index.ts';

type Tree = { [key: string]: string | Tree };
const locales: Record<'en' | 'zh_CN', Tree> = { en: en as Tree, zh_CN: zh as Tree };

/** The value at a dotted key, or undefined. */
function lookup(tree: Tree, key: string): unknown {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = (node as Tree)[part];
  }
  return node;
}

/** Every leaf as `[dotted key, value]`. */
function leaves(tree: Tree, prefix = ''): Array<[string, unknown]> {
  return Object.entries(tree).flatMap(
    ([k, v]): Array<[string, unknown]> =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? leaves(v, `${prefix}${k}.`)
        : [[`${prefix}${k}`, v]],
  );
}

const isText = (v: unknown) => typeof v === 'string' && v.trim() !== '';

describe('endpoint registry', () => {
  it('has unique ids, permissions of the form "METHOD /path", and ids matching their place in `endpoints`', () => {
    expect(allEndpoints.length).toBeGreaterThan(0);
    const ids = allEndpoints.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const ep of allEndpoints) {
      expect(ep.permission).toBe(`${ep.method} ${ep.path}`);
      expect(ep.path).toMatch(/^\/[A-Za-z0-9/]+$/);
      const [group, name] = ep.id.split('.') as [keyof typeof endpoints, string];
      expect(ep.group).toBe(group);
      expect((endpoints[group] as Record<string, unknown>)[name]).toBe(ep);
    }
  });

  it('has exactly one handler per endpoint in server/routes.ts', () => {
    const handled = routes.map((r) => r.endpoint.id);
    expect(new Set(handled).size).toBe(handled.length);
    expect([...handled].sort()).toEqual(allEndpoints.map((e) => e.id).sort());
    // The handler is bound to the registry's own object, not a look-alike.
    for (const r of routes) expect(allEndpoints).toContain(r.endpoint);
  });

  it.each(Object.keys(locales))('describes every endpoint and names every permission group in %s', (lang) => {
    const tree = locales[lang as keyof typeof locales];
    const missing = allEndpoints.filter((e) => !isText(lookup(tree, `endpoints.${e.id}`))).map((e) => e.id);
    expect(missing).toEqual([]);
    const groups = [...new Set(allEndpoints.map((e) => e.group))];
    expect(groups.filter((g) => !isText(lookup(tree, `permGroups.${g}`)))).toEqual([]);
  });

  it.each(Object.keys(locales))('has a message for every errno in %s', (lang) => {
    const tree = locales[lang as keyof typeof locales];
    expect(allErrnos.length).toBe(Object.keys(errno).length);
    expect(allErrnos.filter((code) => !isText(lookup(tree, `errno.${code}`)))).toEqual([]);
  });

  it.each(Object.keys(locales))('names every built-in role and its description in %s', (lang) => {
    const tree = locales[lang as keyof typeof locales];
    const keys = Object.values(builtinRoles).flatMap((list) => list.map((r) => r.key));
    expect(
      keys.filter(
        (k) => !isText(lookup(tree, `roles.${k}`)) || !isText(lookup(tree, `roles.${k}Description`)),
      ),
    ).toEqual([]);
  });

  it('has an OpenAPI 3.1 operation for every endpoint, with its id, caller and permission', () => {
    const doc = openApiDocument() as {
      openapi: string;
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    expect(doc.openapi).toMatch(/^3\.1\./);
    for (const ep of allEndpoints) {
      const op = doc.paths[`/api${ep.path}`]?.[ep.method.toLowerCase()];
      expect(op, ep.id).toBeDefined();
      expect(op).toMatchObject({ operationId: ep.id, 'x-permission': ep.permission, 'x-caller': ep.caller });
      if (ep.caller === 'public') expect(op!.security, ep.id).toEqual([]);
      else expect(op!.security, ep.id).toEqual([{ adminToken: [] }]);
    }
    const operations = Object.values(doc.paths).flatMap((ops) => Object.keys(ops));
    expect(operations.length).toBe(allEndpoints.length);
  });

  it("lists every permissioned endpoint in its kinds' catalogues and nothing else", () => {
    const platform = new Set(catalogueFor('platform').map((e) => e.id));
    const merchant = new Set(catalogueFor('merchant').map((e) => e.id));
    for (const ep of allEndpoints) {
      const inPlatform = ep.caller === 'platform' || ep.caller === 'both';
      const inMerchant = ep.caller === 'merchant' || ep.caller === 'both';
      expect(needsPermission(ep.caller), ep.id).toBe(inPlatform || inMerchant || ep.caller === 'superAdmin');
      expect(platform.has(ep.id), `${ep.id} in the platform catalogue`).toBe(inPlatform);
      expect(merchant.has(ep.id), `${ep.id} in the merchant catalogue`).toBe(inMerchant);
    }
  });
});

describe('locales', () => {
  it('en and zh_CN have exactly the same keys', () => {
    const a = leaves(locales.en).map(([k]) => k);
    const b = leaves(locales.zh_CN).map(([k]) => k);
    expect(
      a.filter((k) => !b.includes(k)),
      'only in en',
    ).toEqual([]);
    expect(
      b.filter((k) => !a.includes(k)),
      'only in zh_CN',
    ).toEqual([]);
    expect(a.length).toBeGreaterThan(50);
  });

  it.each(['en', 'zh_CN'])(
    '%s.json names no key twice in one object (the parser keeps only the last)',
    (lang) => {
      const text = readFileSync(new URL(`../locales/${lang}.json`, import.meta.url), 'utf8');
      const repeated: string[] = [];
      // Each object's keys, by nesting depth: a key seen again before its object closes is a repeat.
      const open: Set<string>[] = [];
      for (const m of text.matchAll(/"((?:[^"\\]|\\.)*)"\s*:|[{}]/g)) {
        if (m[0] === '{') open.push(new Set());
        else if (m[0] === '}') open.pop();
        else if (open.at(-1)?.has(m[1]!)) repeated.push(m[1]!);
        else open.at(-1)?.add(m[1]!);
      }
      expect(repeated).toEqual([]);
    },
  );

  it.each(Object.keys(locales))('%s has no empty or non-text values', (lang) => {
    const bad = leaves(locales[lang as keyof typeof locales])
      .filter(([, v]) => !isText(v))
      .map(([k]) => k);
    expect(bad).toEqual([]);
  });

  it('uses the same {{placeholders}} in both languages', () => {
    const names = (v: unknown) => [...String(v).matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();
    const differ = leaves(locales.en)
      .filter(([k, v]) => JSON.stringify(names(v)) !== JSON.stringify(names(lookup(locales.zh_CN, k))))
      .map(([k]) => k);
    expect(differ).toEqual([]);
  });
});
