/**
 * Bank feeds against a real OpenSSH SFTP server (server/test/sftpServer.ts), on both databases: a file
 * dropped in the folder is imported once as the bank's feed and pays its order by itself; the same bytes
 * under another name add nothing; a file still growing waits for the next poll; a wrong host key is refused
 * and alerted; a broken connection counts its failures, alerts once (then at most hourly) and a good poll
 * resets it; a refused file is recorded with its reason and not retried; the endpoints want finance and a
 * Google code; the private key appears in no answer, operation log or log line. The job's poll is called
 * directly (no timers).
 */
import { randomInt } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { matchesPattern } from '../../../contract/endpoints/statementFeed.ts';
import { endpoints } from '../../../contract/index.ts';
import {
  approvals,
  operationLog,
  payinOrders,
  receivingAccounts,
  statementFeedFiles,
  statementFeeds,
  statementImports,
  telegramDeliveries,
} from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { freePort, hasSshd, type SftpServer, startSftpServer } from '../../test/sftpServer.ts';
import { expectBalanced, orderById } from '../payin/testkit.ts';
import { type BankSetup, bankPayin, bankSetup } from '../receiving/testkit.ts';
import { feedAlertEveryMs, pollFeed, pollStatementFeeds } from './service.ts';

const { statementFeed, telegram, approval: approvalEndpoints } = endpoints;

/** A UTR no other test uses (12 digits, as UPI writes them). */
const newUtr = () => `6${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(100)).padStart(2, '0')}`;

describe('file-name patterns', () => {
  it('match whole names, case-insensitively, with * and ?', () => {
    expect(matchesPattern('*.sta', 'STMT_20261101.STA')).toBe(true);
    expect(matchesPattern('*.sta', 'stmt.sta.part')).toBe(false);
    expect(matchesPattern('stmt_????????.csv', 'stmt_20261101.csv')).toBe(true);
    expect(matchesPattern('stmt_????????.csv', 'stmt_2026110.csv')).toBe(false);
    expect(matchesPattern('*a*a*a*b', `${'a'.repeat(200)}`)).toBe(false);
    expect(matchesPattern('*', 'anything')).toBe(true);
  });
});

describe.skipIf(!hasSshd)(
  'bank feed (SFTP): skipped when /usr/sbin/sshd is absent (apt-get install openssh-server)',
  () => {
    describe.each(engines)('%s', (engine) => {
      let s: TestServer;
      let sftp: SftpServer;
      let bank: BankSetup;
      let accountNumber: string;
      let finance: Awaited<ReturnType<TestServer['makeKeyHolder']>>;
      /** The second finance user, who decides a feed switched on or changed while on. */
      let checker: Awaited<ReturnType<TestServer['makeKeyHolder']>>;
      const logs: string[] = [];

      beforeAll(async () => {
        sftp = await startSftpServer();
        s = await startTestServer(engine, { logSink: logs });
        bank = await bankSetup(s);
        const [a] = await s.db
          .select()
          .from(receivingAccounts)
          .where(eq(receivingAccounts.id, bank.accountId));
        accountNumber = a!.accountNumber;
        const perms = [
          ...Object.values(statementFeed).map((e) => e.permission),
          approvalEndpoints.approve.permission,
          approvalEndpoints.list.permission,
        ];
        finance = await s.makeKeyHolder(perms);
        checker = await s.makeKeyHolder(perms);
        const group = await s.call(
          telegram.groupCreate,
          { chatId: '-1009876543210', name: 'Feeds', alerts: { statementFeed: true } },
          bank.root,
        );
        expect(group.errno, group.errmsg).toBe(0);
      }, 60_000);
      afterEach(() => expectBalanced(s));
      afterAll(async () => {
        await s?.close();
        await sftp?.close();
      });

      const settings = (over: Record<string, unknown> = {}) => ({
        accountId: bank.accountId,
        host: sftp.host,
        port: sftp.port,
        username: sftp.username,
        hostKeyFingerprint: sftp.fingerprint,
        folder: sftp.folder,
        pattern: '*.sta',
        ...over,
      });
      const save = (over: Record<string, unknown> = {}, by = finance) =>
        s.call(statementFeed.save, { ...settings(over), code: by.code() }, by.token);
      /** The checker's decision (signed in afresh: the other's codes move the clock past its idle limit). */
      const approve = async (id: number) => {
        checker.token = await s.login(checker.username, checker.password, checker.code());
        return s.call(approvalEndpoints.approve, { id, code: checker.code() }, checker.token);
      };
      /** A feed switched on or changed while on: asked by finance, approved by the checker. */
      const saveApproved = async (over: Record<string, unknown> = {}) => {
        const asked = await save(over);
        expect(asked.errno, asked.errmsg).toBe(errno.approvalRequested);
        const approved = await approve(asked.data.approvalId);
        expect(approved.errno, approved.errmsg).toBe(0);
        return approved;
      };

      const feedRow = async () =>
        (await s.db.select().from(statementFeeds).where(eq(statementFeeds.accountId, bank.accountId)))[0]!;
      const poll = async () => pollFeed(s.deps, (await feedRow()).id);
      const alerts = async () =>
        (
          await s.db
            .select({ n: sql<number>`count(*)::int` })
            .from(telegramDeliveries)
            .where(eq(telegramDeliveries.alert, 'statementFeed'))
        )[0]!.n;
      const fileRecord = (name: string) =>
        s.db
          .select()
          .from(statementFeedFiles)
          .where(
            and(
              eq(
                statementFeedFiles.feedId,
                sql`(select id from statement_feeds where account_id = ${bank.accountId})`,
              ),
              eq(statementFeedFiles.remoteName, name),
            ),
          );

      /** The bank's MT940 statement of the account today: one credit carrying `utr`. */
      const mt940 = (utr: string, amount: string, ref = 'STMT1') => {
        const now = s.clock.now();
        const ymd = now
          .toLocaleDateString('en-CA', { timeZone: 'Asia/Kolkata' })
          .slice(2)
          .replaceAll('-', '');
        const cents = Math.round(Number(amount) * 100);
        const money = (c: number) => `${Math.floor(c / 100)},${String(c % 100).padStart(2, '0')}`;
        return [
          `:20:${ref}`,
          `:25:HDFC0001234/${accountNumber}`,
          ':28C:1/1',
          `:60F:C${ymd}INR100000,00`,
          `:61:${ymd}${ymd.slice(2)}CN${money(cents)}NTRFNONREF//${utr}`,
          `:86:UPI/${utr}/ASHA RAO/asha@okicici`,
          `:62F:C${ymd}INR${money(10_000_000 + cents)}`,
          '-',
        ].join('\r\n');
      };

      it('refuses without a Google code or to an operator, asks a second finance user to switch a feed on or change it while on, and keeps the key out of every answer', async () => {
        const withoutCode = await s.call(
          statementFeed.save,
          { ...settings(), privateKey: sftp.clientKey },
          finance.token,
        );
        expect(withoutCode.errno).toBe(errno.invalid);
        const wrongCode = await s.call(
          statementFeed.save,
          { ...settings(), privateKey: sftp.clientKey, code: '000000' },
          finance.token,
        );
        expect(wrongCode.errno).toBe(errno.badCode);
        const operator = await s.makeUser({
          perms: [statementFeed.get.permission, statementFeed.files.permission],
        });
        const byOperator = await s.call(
          statementFeed.save,
          { ...settings(), privateKey: sftp.clientKey, code: '123456' },
          operator.token,
        );
        expect(byOperator.errno).toBe(errno.forbidden);
        expect((await s.call(statementFeed.test, { accountId: bank.accountId }, operator.token)).errno).toBe(
          errno.forbidden,
        );
        // A new feed needs its key; a key that is no key is refused before the code is spent.
        expect((await save()).errno).toBe(errno.invalid);
        const notAKey = await save({
          privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nnonsense\n-----END OPENSSH PRIVATE KEY-----',
        });
        expect(notAKey.errno).toBe(errno.invalid);
        expect(notAKey.data.fields[0].path).toBe('privateKey');
        expect((await save({ hostKeyFingerprint: 'MD5:aa:bb', privateKey: sftp.clientKey })).errno).toBe(
          errno.invalid,
        );
        expect((await save({ pattern: '(a+)+', privateKey: sftp.clientKey })).errno).toBe(errno.invalid);
        expect((await save({ port: 70000, privateKey: sftp.clientKey })).errno).toBe(errno.invalid);
        expect((await save({ folder: '/srv/../etc', privateKey: sftp.clientKey })).errno).toBe(errno.invalid);

        // A feed switched on pays by itself: it is asked of a second person, not saved.
        const asked = await save({ privateKey: sftp.clientKey });
        expect(asked.errno, asked.errmsg).toBe(errno.approvalRequested);
        let got = await s.call(statementFeed.get, { accountId: bank.accountId }, operator.token);
        expect(got.data).toMatchObject({
          feed: null,
          pending: { approvalId: asked.data.approvalId, requestedBy: finance.username },
        });
        // While it waits, nothing but switching the feed off is taken; the requester never decides it.
        expect((await save({ privateKey: sftp.clientKey })).errno).toBe(errno.approvalPending);
        const own = await s.call(
          approvalEndpoints.approve,
          { id: asked.data.approvalId, code: finance.code() },
          finance.token,
        );
        expect(own.errno).toBe(errno.sameUser);
        const queue = await s.call(approvalEndpoints.list, {}, checker.token);
        const request = queue.data.list.find((r: { id: number }) => r.id === asked.data.approvalId);
        expect(request).toMatchObject({ action: 'statementFeed.save', label: expect.stringContaining(' ·') });
        expect(JSON.stringify(request)).not.toContain('Sealed');
        const saved = await approve(asked.data.approvalId);
        expect(saved.errno, saved.errmsg).toBe(0);
        got = await s.call(statementFeed.get, { accountId: bank.accountId }, operator.token);
        expect(got.data.pending).toBeNull();
        expect(got.data.feed).toMatchObject({ keySet: true, importAs: finance.username, enabled: true });

        // Changing it while on is asked again; switched off, it is one person's, and so is a change while off.
        const changed = await save({ pattern: '*.STA' });
        expect(changed.errno).toBe(errno.approvalRequested);
        expect((await save({ pattern: '*.STA', enabled: false })).errno).toBe(0);
        const requests = await s.db.select().from(approvals).where(eq(approvals.refType, 'statementFeed'));
        expect(requests.map((r) => r.status).sort()).toEqual(['approved', 'cancelled']);
        expect((await save({ pattern: '*.STA', enabled: false, folder: '.' })).errno).toBe(0);
        expect((await feedRow()).folder).toBe('.');
        await saveApproved({ pattern: '*.STA' });
        got = await s.call(statementFeed.get, { accountId: bank.accountId }, operator.token);
        expect(got.data.feed).toMatchObject({
          keySet: true,
          pattern: '*.STA',
          host: sftp.host,
          enabled: true,
        });
        // Saved again as it is: nothing loosened, nothing asked.
        expect((await save({ pattern: '*.STA' })).errno).toBe(0);

        const tested = await s.call(statementFeed.test, { accountId: bank.accountId }, finance.token);
        expect(tested.data).toEqual({ ok: true, error: null, files: [] });

        const body = sftp.clientKey.split('\n')[1]!;
        for (const answer of [asked, saved, changed, got, tested, queue])
          expect(JSON.stringify(answer)).not.toContain(body);
        const logged = await s.db
          .select()
          .from(operationLog)
          .where(eq(operationLog.target, `receivingAccount:${bank.accountId}`));
        expect(logged.length).toBeGreaterThanOrEqual(3);
        expect(JSON.stringify(logged)).not.toContain(body);
        expect(JSON.stringify(logged)).not.toContain('OPENSSH PRIVATE KEY');
        expect(logs.join('\n')).not.toContain(body);
        expect((await feedRow()).privateKeySealed).not.toContain(body);
      });

      it('imports a file that stood still once, as the bank feed that pays by itself; its bytes again under another name add nothing', async () => {
        const o = (await bankPayin(s, bank.merchant, { amount: '1499.00' })).order;
        const utr = newUtr();
        await s.db.update(payinOrders).set({ payerUtr: utr }).where(eq(payinOrders.id, o.id));
        const text = mt940(utr, '1499.00');
        sftp.drop('stmt-1.sta', text);
        sftp.drop('notes.txt', 'not a statement');

        // First seen: it may still be being written, so it waits.
        expect(await poll()).toMatchObject({ ok: true, imported: 0, waiting: 1 });
        expect((await orderById(s, o.id)).status).toBe('pending');
        expect(await poll()).toMatchObject({ ok: true, imported: 1 });
        expect(await orderById(s, o.id)).toMatchObject({ status: 'paid', paidBy: 'statement', utr });
        const [rec] = await fileRecord('stmt-1.sta');
        expect(rec).toMatchObject({ error: null, size: Buffer.byteLength(text) });
        const [imp] = await s.db
          .select()
          .from(statementImports)
          .where(eq(statementImports.id, rec!.importId!));
        expect(imp).toMatchObject({
          source: 'feed',
          createdBy: finance.id,
          fileName: 'stmt-1.sta',
          sha256: rec!.sha256,
        });

        // Polled again: nothing downloaded again. The same bytes under another name: a duplicate.
        expect(await poll()).toMatchObject({ ok: true, imported: 0, duplicates: 0 });
        sftp.drop('stmt-1-copy.STA', text);
        await poll();
        expect(await poll()).toMatchObject({ ok: true, imported: 0, duplicates: 1 });
        const imports = await s.db
          .select({ n: sql<number>`count(*)::int` })
          .from(statementImports)
          .where(eq(statementImports.accountId, bank.accountId));
        expect(imports[0]!.n).toBe(1);

        const files = await s.call(statementFeed.files, { accountId: bank.accountId }, finance.token);
        expect(files.data.list).toHaveLength(1);
        expect(files.data.list[0]).toMatchObject({
          remoteName: 'stmt-1.sta',
          importId: imp!.id,
          error: null,
        });
      });

      it('leaves a file that is still growing for a later poll', async () => {
        const o = (await bankPayin(s, bank.merchant, { amount: '250.00' })).order;
        const utr = newUtr();
        await s.db.update(payinOrders).set({ payerUtr: utr }).where(eq(payinOrders.id, o.id));
        const text = mt940(utr, '250.00', 'STMT2');
        const half = text.slice(0, 40);
        sftp.drop('stmt-2.sta', half);
        expect(await poll()).toMatchObject({ imported: 0, waiting: 1 });
        sftp.drop('stmt-2.sta', text);
        // Its size changed since the last poll: still waiting.
        expect(await poll()).toMatchObject({ imported: 0, waiting: 1 });
        expect(await fileRecord('stmt-2.sta')).toHaveLength(0);
        expect(await poll()).toMatchObject({ imported: 1 });
        expect((await orderById(s, o.id)).status).toBe('paid');
      });

      it('records a refused file with its reason, alerts once and never retries it', async () => {
        const before = await alerts();
        sftp.drop('garbage.sta', 'this is no statement at all\n');
        await poll();
        expect(await poll()).toMatchObject({ ok: true, imported: 0, refused: 1 });
        const [rec] = await fileRecord('garbage.sta');
        expect(rec!.importId).toBeNull();
        expect(rec!.error).toBeTruthy();
        expect(await alerts()).toBe(before + 1);
        // Polled again, or the same bytes under another name: not retried, not alerted again.
        sftp.drop('garbage-again.sta', 'this is no statement at all\n');
        await poll();
        expect(await poll()).toMatchObject({ refused: 0, duplicates: 1 });
        expect(await alerts()).toBe(before + 1);

        // Another account's statement is refused too (the bank's feed names its account).
        const other = mt940(newUtr(), '10.00', 'STMT3').replace(accountNumber, '99999999999');
        sftp.drop('other.sta', other);
        await poll();
        expect(await poll()).toMatchObject({ refused: 1 });
        expect((await fileRecord('other.sta'))[0]!.error).toContain('99999999999');
      });

      it('refuses a server whose host key is not the pinned one, and alerts', async () => {
        const before = await alerts();
        const wrong = `SHA256:${Buffer.alloc(32, 7).toString('base64').replace(/=+$/, '')}`;
        await saveApproved({ hostKeyFingerprint: wrong });
        const tested = await s.call(statementFeed.test, { accountId: bank.accountId }, finance.token, {
          'accept-language': 'zh-CN',
        });
        expect(tested.data.ok).toBe(false);
        expect(tested.data.error).toContain(sftp.fingerprint);
        const out = await poll();
        expect(out).toMatchObject({ ok: false });
        expect(out!.error).toContain(sftp.fingerprint);
        const row = await feedRow();
        expect(row.consecutiveFailures).toBe(1);
        expect(row.lastError).toContain('not the pinned one');
        expect(await alerts()).toBe(before + 1);
        await saveApproved();
        expect(await poll()).toMatchObject({ ok: true });
      });

      it('counts a broken connection, alerts at the first failure and then hourly, and a good poll resets it', async () => {
        const before = await alerts();
        await sftp.stop();
        expect(await poll()).toMatchObject({ ok: false });
        expect(await poll()).toMatchObject({ ok: false });
        expect(await poll()).toMatchObject({ ok: false });
        let row = await feedRow();
        expect(row.consecutiveFailures).toBe(3);
        expect(row.lastError).toMatch(/connect/i);
        expect(await alerts()).toBe(before + 1);
        s.clock.advance(feedAlertEveryMs);
        expect(await poll()).toMatchObject({ ok: false });
        expect(await alerts()).toBe(before + 2);
        expect((await feedRow()).consecutiveFailures).toBe(4);
        // An hour later the session has lapsed: sign in again.
        finance = { ...finance, token: await s.login(finance.username, finance.password, finance.code()) };

        await sftp.start();
        expect(await poll()).toMatchObject({ ok: true });
        row = await feedRow();
        expect(row).toMatchObject({ consecutiveFailures: 0, lastError: null });
        expect(row.lastPolledAt).not.toBeNull();

        // A port nobody listens on fails the same way.
        await saveApproved({ port: await freePort() });
        expect(await poll()).toMatchObject({ ok: false });
        expect((await feedRow()).consecutiveFailures).toBe(1);
        await saveApproved();
      });

      it('the job polls due feeds once, whatever the number of workers, and not a disabled one', async () => {
        s.clock.advance(120_000);
        const [a, b] = await Promise.all([pollStatementFeeds(s.deps), pollStatementFeeds(s.deps)]);
        expect(a + b).toBe(1);
        // Polled just now: not due again.
        expect(await pollStatementFeeds(s.deps)).toBe(0);
        expect((await save({ enabled: false })).errno).toBe(0);
        s.clock.advance(120_000);
        expect(await pollStatementFeeds(s.deps)).toBe(0);
        expect(await poll()).toBeNull();
      });

      it('answers a key sealed under another app key as the feed failing, in the test and the poll', async () => {
        const kept = (await feedRow()).privateKeySealed;
        await s.db
          .update(statementFeeds)
          .set({ privateKeySealed: `v1.${Buffer.alloc(48, 1).toString('base64url')}`, enabled: true })
          .where(eq(statementFeeds.accountId, bank.accountId));
        const tested = await s.call(statementFeed.test, { accountId: bank.accountId }, finance.token);
        expect(tested.errno, tested.errmsg).toBe(0);
        expect(tested.data).toMatchObject({ ok: false, error: expect.stringContaining('app key') });
        s.clock.advance(120_000);
        expect(await poll()).toMatchObject({ ok: false, error: expect.stringContaining('app key') });
        await s.db
          .update(statementFeeds)
          .set({ privateKeySealed: kept, enabled: false })
          .where(eq(statementFeeds.accountId, bank.accountId));
      });

      it('deletes the feed with the Google code only, its files with it, the imports kept', async () => {
        expect((await s.call(statementFeed.delete, { accountId: bank.accountId }, finance.token)).errno).toBe(
          errno.invalid,
        );
        const gone = await s.call(
          statementFeed.delete,
          { accountId: bank.accountId, code: finance.code() },
          finance.token,
        );
        expect(gone.errno, gone.errmsg).toBe(0);
        expect(
          (await s.call(statementFeed.get, { accountId: bank.accountId }, finance.token)).data.feed,
        ).toBeNull();
        const kept = await s.db
          .select()
          .from(statementImports)
          .where(eq(statementImports.accountId, bank.accountId));
        expect(kept.length).toBeGreaterThan(0);
      });
    });
  },
);
