import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noticesShown } from '../../../contract/endpoints/memo.ts';
import { endpoints } from '../../../contract/index.ts';
import { operationLog, systemMemos } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';

const { memo } = endpoints;
const titles = (r: { data: { list: { title: string }[] } }) => r.data.list.map((m) => m.title);

describe.each(engines)('the system memo on %s', (engine) => {
  let s: TestServer;
  let root: string;
  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
  });
  afterAll(() => s.close());

  it('shows each kind of user its audience: pinned first, then newest first', async () => {
    await s.db.delete(systemMemos);
    for (const [title, audience, pinned] of [
      ['Platform only', 'platform', false],
      ['Merchants only', 'merchants', false],
      ['Everyone', 'everyone', false],
      ['Pinned for merchants', 'merchants', true],
    ] as const) {
      s.clock.advance(1000);
      expect((await s.call(memo.create, { title, body: 'Text', audience, pinned }, root)).errno).toBe(0);
    }
    // No permission is needed to read one's notices.
    const platformUser = await s.makeUser({ perms: [] });
    const merchantUser = await s.makeUser({ kind: 'merchant', perms: [] });
    expect(titles(await s.call(memo.notices, {}, platformUser.token))).toEqual(['Everyone', 'Platform only']);
    expect(titles(await s.call(memo.notices, {}, merchantUser.token))).toEqual([
      'Pinned for merchants',
      'Everyone',
      'Merchants only',
    ]);
    expect((await s.call(memo.notices, {})).errno).toBe(errno.notSignedIn);
  });

  it('caps the dashboard at the pinned and newest notices', async () => {
    await s.db.delete(systemMemos);
    for (let i = 0; i < noticesShown + 3; i++) {
      s.clock.advance(1000);
      await s.call(memo.create, { title: `N${i}`, audience: 'everyone', pinned: i === 0 }, root);
    }
    const shown = titles(await s.call(memo.notices, {}, root));
    expect(shown).toHaveLength(noticesShown);
    expect(shown.slice(0, 3)).toEqual(['N0', `N${noticesShown + 2}`, `N${noticesShown + 1}`]);
    // The management list pages by keyset, newest first, every notice once.
    const first = await s.call(memo.list, { pageSize: 5 }, root);
    const rest = await s.call(memo.list, { pageSize: 50, cursor: first.data.nextCursor }, root);
    expect(first.data.total).toBe(noticesShown + 3);
    expect([...titles(first), ...titles(rest)]).toHaveLength(noticesShown + 3);
    expect(titles(first)[0]).toBe(`N${noticesShown + 2}`);
  });

  it('keeps markup as plain text: a script title comes back as the very characters written', async () => {
    const title = '<script>alert(1)</script>';
    const body = 'Line one\n<b>not bold</b>\nLine three';
    const made = await s.call(memo.create, { title, body, audience: 'everyone', pinned: true }, root);
    const shown = (await s.call(memo.notices, {}, root)).data.list.find(
      (m: { id: number }) => m.id === made.data.id,
    );
    expect(shown).toMatchObject({ title, body, pinned: true, audience: 'everyone' });
  });

  it('refuses a missing title, a long one, an unknown audience or field, in both languages', async () => {
    const bad = [
      { title: '  ', audience: 'everyone' },
      { title: 'x'.repeat(121), audience: 'everyone' },
      { title: 'Fine', audience: 'agents' },
      { title: 'Fine', audience: 'everyone', html: true },
      { title: 'Fine', audience: 'everyone', body: 'y'.repeat(4001) },
    ];
    for (const input of bad) {
      const r = await s.call(memo.create, input, root);
      expect(r.errno, JSON.stringify(input).slice(0, 60)).toBe(errno.invalid);
      expect(r.data.fields.length).toBeGreaterThan(0);
    }
    const zh = await s.call(memo.create, { title: '', audience: 'everyone' }, root, {
      'accept-language': 'zh-CN',
    });
    expect(zh.data.fields[0].path).toBe('title');
    expect(zh.data.fields[0].message).toMatch(/\p{Script=Han}/u);
    // Hostile input changes nothing: control characters (line breaks only in the body), 1 MB, an id that is not one.
    const kept = await s.call(
      memo.create,
      { title: 'Kept', body: 'Two\nlines\ttabbed', audience: 'everyone' },
      root,
    );
    expect(kept.errno).toBe(0);
    for (const input of [
      { title: 'Bell\u0007', audience: 'everyone' },
      { title: 'Two\nlines', audience: 'everyone' },
      { title: 'Fine', body: 'Escape \u001b[31m', audience: 'everyone' },
      { title: 'Fine', body: 'z'.repeat(1_000_000), audience: 'everyone' },
      { title: ['Fine'], audience: 'everyone' },
    ]) {
      expect((await s.call(memo.create, input, root)).errno, JSON.stringify(input).slice(0, 60)).toBe(
        errno.invalid,
      );
    }
    for (const id of [[kept.data.id], true, `${kept.data.id}.5`, -1]) {
      const r = await s.call(memo.update, { id, title: 'Changed' }, root);
      expect(r.errno, String(id)).toBe(errno.invalid);
      expect((await s.call(memo.delete, { id }, root)).errno).toBe(errno.invalid);
    }
    const [row] = await s.db.select().from(systemMemos).where(eq(systemMemos.id, kept.data.id));
    expect(row).toMatchObject({ title: 'Kept', body: 'Two\nlines\ttabbed' });
    expect((await s.call(memo.update, { id: 999_999, title: 'Gone' }, root)).errno).toBe(errno.notFound);
    expect((await s.call(memo.delete, { id: 999_999 }, root)).errno).toBe(errno.notFound);
  });

  it('lets only platform users holding the permission write, each change logged', async () => {
    const merchantOwner = await s.makeUser({ kind: 'merchant', perms: ['*'] });
    const reader = await s.makeUser({ perms: [memo.list.permission] });
    const writer = await s.makeUser({ perms: [memo.create.permission, memo.update.permission] });
    const input = { title: 'Maintenance', audience: 'merchants' as const };
    expect((await s.call(memo.create, input, merchantOwner.token)).errno).toBe(errno.forbidden);
    expect((await s.call(memo.list, {}, merchantOwner.token)).errno).toBe(errno.forbidden);
    expect((await s.call(memo.create, input, reader.token)).errno).toBe(errno.forbidden);
    const made = await s.call(memo.create, { ...input, body: 'Tonight 02:00–03:00' }, writer.token);
    expect(made.errno).toBe(0);
    const id = made.data.id;
    expect((await s.call(memo.update, { id, pinned: true, audience: 'everyone' }, writer.token)).errno).toBe(
      0,
    );
    expect((await s.call(memo.delete, { id }, writer.token)).errno).toBe(errno.forbidden);
    expect((await s.call(memo.delete, { id }, root)).errno).toBe(0);
    const trail = await s.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.target, `memo:${id}`), eq(operationLog.outcome, 'ok')))
      .orderBy(operationLog.id);
    expect(trail.map((r) => r.action)).toEqual(['memo.create', 'memo.update', 'memo.delete']);
    expect((trail[1]!.detail as { changes: unknown }).changes).toEqual({
      pinned: { before: false, after: true },
      audience: { before: 'merchants', after: 'everyone' },
    });
  });
});
