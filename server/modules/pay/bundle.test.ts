/**
 * The pay page's bundle, built here with vite.pay.config.ts into a folder of its own: small enough for a
 * payer's phone (HTML, JS and CSS at most 30 KB gzip together), and served at /pay/<orderNo> with the
 * language the browser asks for, both languages' `pay.*` strings, no caching of the order's page,
 * immutable hashed assets and the security headers of every other answer.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import en from '../../../locales/en.json' with { type: 'json' };
import zh from '../../../locales/zh_CN.json' with { type: 'json' };
import { startTestServer, type TestServer } from '../../test/harness.ts';
import { bankPayin, bankSetup } from '../receiving/testkit.ts';

const maxGzipBytes = 30 * 1024;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('the pay page bundle', () => {
  const dist = mkdtempSync(join(tmpdir(), 'paygate-pay-'));
  const payDir = join(dist, 'pay');
  let s: TestServer;

  beforeAll(async () => {
    await build({ configFile: 'vite.pay.config.ts', logLevel: 'silent', build: { outDir: payDir } });
    // The server looks for the pay page beside the console's folder.
    mkdirSync(join(dist, 'console'));
    s = await startTestServer('pglite', { config: { consoleDir: join(dist, 'console') } });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('is at most 30 KB gzip, HTML, JS and CSS together, with no framework in it', () => {
    const files = filesUnder(payDir);
    expect(files.map((f) => f.split('.').pop()).sort()).toEqual(['css', 'html', 'js']);
    const gzip = files.reduce((sum, f) => sum + gzipSync(readFileSync(f), { level: 9 }).length, 0);
    expect(gzip).toBeGreaterThan(1000);
    expect(gzip).toBeLessThanOrEqual(maxGzipBytes);
    const js = readFileSync(files.find((f) => f.endsWith('.js'))!, 'utf8');
    expect(js).not.toMatch(/react|zod/i);
  });

  it('serves the page in the browser’s language with both languages’ strings, never cached', async () => {
    const bank = await bankSetup(s);
    const { order, answer } = await bankPayin(s, bank.merchant);
    expect(answer.payUrl).toMatch(new RegExp(`/pay/${order.orderNo}$`));
    const page = await s.request('GET', `/pay/${order.orderNo}`, {
      headers: { 'accept-language': 'en-IN,en' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.text).toContain('<html lang="en">');
    const data = JSON.parse(
      page.text.match(/<script type="application\/json" id="pay-data">(.*?)<\/script>/)![1]!,
    );
    expect(data).toEqual({ lang: 'en', strings: { en: en.pay, zh_CN: zh.pay } });
    // Only the pay page's strings: no other part of the locale files reaches a payer.
    expect(page.text).not.toContain(en.errno['403']);

    const zhPage = await s.request('GET', `/pay/${order.orderNo}`, {
      headers: { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' },
    });
    expect(zhPage.text).toContain('<html lang="zh-CN">');
    expect(zhPage.text).toContain('"lang":"zh_CN"');

    // An unknown order: the same page (it shows "order not found"), with a 404 for whoever reads the status.
    const unknown = await s.request('GET', '/pay/PI000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('id="pay-data"');
  });

  it('serves its hashed assets as immutable, and nothing else under /pay/assets', async () => {
    const script = filesUnder(payDir).find((f) => f.endsWith('.js'))!;
    const name = script.slice(payDir.length);
    const asset = await s.request('GET', `/pay${name}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.text).toBe(readFileSync(script, 'utf8'));
    expect((await s.request('GET', '/pay/assets/missing.js')).status).toBe(404);
    expect((await s.request('GET', '/pay/assets/..%2F..%2Fpackage.json')).status).toBe(404);
  });
});
