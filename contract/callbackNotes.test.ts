/**
 * The console reads the server's own notes on callback attempts: every note the server writes (timeout,
 * each refusal) has words in both languages, and a merchant's reply is never mistaken for one.
 */
import { describe, expect, it } from 'vitest';
import en from '../locales/en.json';
import zh from '../locales/zh_CN.json';
import { postOutbound, RefusedTarget, refusalOf } from '../server/lib/outbound.ts';
import { addressKinds, attemptAnswer, attemptNote } from './callbackNotes.ts';

const lookup = (table: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((at, k) => (at as Record<string, unknown> | undefined)?.[k], table);

const samples: [string, string][] = [
  ['timeout', 'timeout'],
  ['127.0.0.1', 'address'],
  ['::ffff:10.0.0.1', 'address'],
  ['169.254.169.254', 'address'],
  ['fd00:ec2::254', 'address'],
  ['100.64.0.1', 'address'],
  ['224.0.0.1', 'address'],
  ['255.255.255.255', 'address'],
  ['0.0.0.0', 'address'],
  ['192.0.2.1', 'address'],
  ['fe80::1', 'address'],
  ['fd12::1', 'address'],
];

async function refusalFor(url: string): Promise<string> {
  const err = await postOutbound(url, { body: '', headers: {}, timeoutMs: 1000, allowPrivate: false }).catch(
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RefusedTarget);
  return (err as Error).message;
}

describe('attemptNote', () => {
  it('names every note the server writes, with words in both languages', async () => {
    const notes = samples.map(([ip]) => (ip === 'timeout' ? 'timeout' : refusalOf(ip, false)!));
    notes.push(
      await refusalFor('ftp://example.com/'),
      await refusalFor('::not a url'),
      await refusalFor('https://user:pw@example.com/'),
    );
    const keys = ['timeout', ...samples.slice(1).map(() => 'address'), 'scheme', 'invalidUrl', 'credentials'];
    for (const [i, text] of notes.entries()) {
      const note = attemptNote(null, text);
      expect(note?.key, text).toBe(keys[i]);
      for (const table of [en, zh]) {
        expect(lookup(table, `screens.order.attemptNotes.${note!.key}`), text).toEqual(expect.any(String));
        if (note!.params?.kind)
          expect(lookup(table, `screens.order.attemptNotes.kinds.${note!.params.kind}`)).toEqual(
            expect.any(String),
          );
      }
    }
    for (const kind of addressKinds)
      for (const table of [en, zh])
        expect(lookup(table, `screens.order.attemptNotes.kinds.${kind}`)).toBeTruthy();
    expect(attemptNote(null, 'refused: loopback address 127.0.0.1')).toEqual({
      key: 'address',
      params: { kind: 'loopback', address: '127.0.0.1' },
    });
  });

  it('leaves a merchant reply and a network error as they are', () => {
    expect(attemptNote(503, 'timeout')).toBeNull();
    expect(attemptNote(200, 'refused: loopback address 127.0.0.1')).toBeNull();
    expect(attemptNote(null, 'connect ECONNREFUSED 127.0.0.1:9')).toBeNull();
    expect(attemptNote(null, 'refused: nowhere address 1.2.3.4')).toBeNull();
  });

  it('reads a note in the language of the reader, a reply as it came', () => {
    const translator =
      (table: unknown) =>
      (key: string, params: Record<string, unknown> = {}) =>
        String(lookup(table, key)).replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(params[name]));
    const refused = refusalOf('::ffff:169.254.169.254', false)!;
    expect(attemptAnswer(null, refused, translator(en))).toBe(
      'Not sent: 169.254.169.254 is not a public address (cloud metadata)',
    );
    expect(attemptAnswer(null, refused, translator(zh))).toBe(
      '未发送：169.254.169.254 不是公网地址（云元数据）',
    );
    expect(attemptAnswer(null, 'timeout', translator(zh))).toBe('15 秒内无响应');
    expect(attemptAnswer(500, 'no (500)', translator(zh))).toBe('no (500)');
  });
});
