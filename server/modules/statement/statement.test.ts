/**
 * Bank statement import and matching on both databases (OPERATIONS.md section 2; docs/STATEMENTS.md):
 * a credit of a person's statement carrying a pending order's UTR and amount is ready, and pays it once
 * when a finance user posts it (ledger balanced, callback queued); a line of the bank's feed pays by
 * itself; a re-import adds nothing, another amount is an exception, one open order of the amount is
 * proposed (and paid only on accept), several are ambiguous, none unmatched; a UTR pays at most one order
 * whichever way it came first (statement line, supplement, forced supplement); unreadable files, row
 * errors, an oversized body and a zip bomb write nothing; a dry run writes nothing; a person matches and
 * dismisses; a merchant user is refused; rematch readies once a payer's UTR is known; the same file
 * imported twice at once pays once; a debit naming a waiting withdrawal-slip line of its account proposes
 * closing it, and closes it when posted. The controls of posting are in posting.test.ts.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { defaultBusinessTimeZone } from '../../config.ts';
import { inTransaction } from '../../db/index.ts';
import {
  journalEntries,
  payinOrders,
  payoutOrders,
  receivingAccounts,
  statementImports,
  statementLines,
  webhookEvents,
  withdrawalSlipLines,
} from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { zipOf } from '../../test/zip.ts';
import { expectBalanced, orderById } from '../payin/testkit.ts';
import { createPayout } from '../payout/service.ts';
import { drainQueue } from '../payout/testkit.ts';
import { type BankSetup, bankPayin, bankSetup, csvMapping as mapping } from '../receiving/testkit.ts';
import { merchantWithOwner } from '../settlement/testkit.ts';
import { importStatement } from './service.ts';

const { statement, statementMapping, merchantOrder } = endpoints;

interface Row {
  narration: string;
  ref?: string;
  credit?: string;
  debit?: string;
  day?: string;
}

/** A UTR no other test uses (12 digits, as UPI writes them). */
const newUtr = () => `6${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(100)).padStart(2, '0')}`;

describe.each(engines)('bank statements on %s', (engine) => {
  let s: TestServer;
  let bank: BankSetup;
  let root: string;
  /** A finance user with a Google key: posts and matches lines. */
  let poster: Awaited<ReturnType<TestServer['makeKeyHolder']>>;

  beforeAll(async () => {
    s = await startTestServer(engine);
    bank = await bankSetup(s);
    root = bank.root;
    poster = await s.makeKeyHolder([
      statement.accept.permission,
      statement.match.permission,
      statement.list.permission,
    ]);
  });
  afterEach(() => expectBalanced(s));
  afterAll(() => s.close());

  /** Today's business day (orders made now live on it). */
  const today = () =>
    new Date(s.clock.now()).toLocaleDateString('en-CA', { timeZone: defaultBusinessTimeZone });

  const csv = (rows: Row[]) =>
    `Date,Narration,Ref,Debit,Credit\n${rows
      .map((r) => `${r.day ?? today()},${r.narration},${r.ref ?? ''},${r.debit ?? ''},${r.credit ?? ''}`)
      .join('\n')}\n`;

  const importCsv = (text: string, extra: Record<string, unknown> = {}, token = root) =>
    s.call(
      statement.import,
      {
        accountId: bank.accountId,
        mapping,
        file: Buffer.from(text).toString('base64'),
        fileName: 'hdfc.csv',
        ...extra,
      },
      token,
    );

  /** Posts lines (or an import's ready lines) as the finance user. */
  const post = (which: { lineIds: number[] } | { importId: number }, by = poster) =>
    s.call(statement.accept, { ...which, reason: 'statement checked', code: by.code() }, by.token);

  /** Matches a line to an order as the finance user. */
  const match = (lineId: number, orderId: number, by = poster) =>
    s.call(statement.match, { lineId, orderId, reason: 'payer confirmed', code: by.code() }, by.token);

  /** A statement of the bank's own feed (host-to-host), imported as the job would: it pays by itself. */
  const importFeed = (text: string) =>
    importStatement(
      s.deps,
      1,
      { accountId: bank.accountId, mapping, file: Buffer.from(text).toString('base64') },
      'en',
      'feed',
    );

  const lineOf = async (utrOrNarration: string) => {
    const [l] = await s.db
      .select()
      .from(statementLines)
      .where(
        and(
          eq(statementLines.accountId, bank.accountId),
          utrOrNarration.startsWith('N:')
            ? eq(statementLines.narration, utrOrNarration.slice(2))
            : eq(statementLines.utr, utrOrNarration),
        ),
      );
    return l!;
  };

  const order = async (amount: string) => (await bankPayin(s, bank.merchant, { amount })).order;

  const setPayerUtr = (id: number, utr: string) =>
    s.db.update(payinOrders).set({ payerUtr: utr }).where(eq(payinOrders.id, id));

  const paymentsOf = async (id: number) => {
    const [e] = await s.db
      .select({ n: count() })
      .from(journalEntries)
      .where(and(eq(journalEntries.refType, 'payin'), eq(journalEntries.refId, String(id))));
    const [w] = await s.db
      .select({ n: count() })
      .from(webhookEvents)
      .where(
        and(
          eq(webhookEvents.orderType, 'payin'),
          eq(webhookEvents.orderId, id),
          eq(webhookEvents.type, 'payin.paid'),
        ),
      );
    return { entries: e!.n, callbacks: w!.n };
  };

  const written = async () => {
    const [i] = await s.db.select({ n: count() }).from(statementImports);
    const [l] = await s.db.select({ n: count() }).from(statementLines);
    return { imports: i!.n, lines: l!.n };
  };

  it("a credit with a pending order's payer UTR and amount is ready, pays it once when posted; a re-import adds nothing", async () => {
    const o = await order('150.00');
    const utr = newUtr();
    await setPayerUtr(o.id, utr);
    const file = csv([
      { narration: `UPI-ASHA RAO-asha@okicici-ICIC0001234-${utr}-PAY`, ref: utr, credit: '150.00' },
    ]);
    const first = await importCsv(file, { key: `imp-${utr}` });
    expect(first.errno, first.errmsg).toBe(0);
    expect(first.data.counts).toEqual({
      lines: 1,
      new: 1,
      duplicates: 0,
      matched: 0,
      ready: 1,
      proposed: 0,
      exceptions: 0,
    });
    expect(first.data.wouldPay).toEqual({ count: 1, sum: '150.00' });
    // Evidence, not a decision: nothing is paid until a finance user posts it.
    expect((await orderById(s, o.id)).status).toBe('pending');
    expect(await lineOf(utr)).toMatchObject({ status: 'ready', candidatePayinId: o.id });
    const posted = await post({ importId: first.data.importId });
    expect(posted.errno, posted.errmsg).toBe(0);
    expect(posted.data).toEqual({ matched: 1, refused: [], approval: null });
    const paid = await orderById(s, o.id);
    expect(paid).toMatchObject({ status: 'paid', paidBy: 'statement', utr, paidAmount: 15000 });
    expect(await paymentsOf(o.id)).toEqual({ entries: 1, callbacks: 1 });
    const line = await lineOf(utr);
    expect(line).toMatchObject({
      status: 'matched',
      payinId: o.id,
      exceptionKind: null,
      resolvedBy: poster.id,
    });

    const again = await importCsv(file);
    expect(again.errno, again.errmsg).toBe(0);
    expect(again.data.counts).toEqual({
      lines: 1,
      new: 0,
      duplicates: 1,
      matched: 0,
      ready: 0,
      proposed: 0,
      exceptions: 0,
    });
    expect(await paymentsOf(o.id)).toEqual({ entries: 1, callbacks: 1 });

    // The import as the console follows it, lists it and downloads it.
    const info = await s.call(statement.importInfo, { key: `imp-${utr}` }, root);
    expect(info.data).toMatchObject({
      id: first.data.importId,
      status: 'done',
      processed: 1,
      lineCount: 1,
      format: 'csv',
      source: 'upload',
      fileName: 'hdfc.csv',
      counts: { new: 1, ready: 1 },
      wouldPay: { count: 0, sum: '0.00' },
      accountLabel: expect.stringMatching(/^HDFC Bank .*\d{4}$/),
    });
    const file2 = await s.request('GET', `/api${statement.file.path}?id=${first.data.importId}`, {
      token: root,
    });
    expect(file2.status).toBe(200);
    expect(file2.headers.get('content-type')).toContain('text/csv');
    expect(file2.text).toBe(file);
    // A name the uploader chose, in any script, with a quote and a line break: the header stays whole.
    const named = await importCsv(csv([{ narration: `NAMED FILE ${o.id}`, credit: '1.00' }]), {
      fileName: '三月 "流水"\r\nX-Evil: 1.csv',
    });
    expect(named.errno, named.errmsg).toBe(0);
    const file3 = await s.request('GET', `/api${statement.file.path}?id=${named.data.importId}`, {
      token: root,
    });
    expect(file3.status).toBe(200);
    expect(file3.headers.get('x-evil')).toBeNull();
    expect(file3.headers.get('content-disposition')).toBe(
      `attachment; filename="_X-Evil_1.csv"; filename*=UTF-8''${encodeURIComponent('三月 "流水"\r\nX-Evil: 1.csv')}`,
    );
    const listed = await s.call(statement.list, { accountId: bank.accountId, q: utr.toLowerCase() }, root);
    expect(listed.data.list).toHaveLength(1);
    expect(listed.data.list[0]).toMatchObject({
      payinNo: o.orderNo,
      status: 'matched',
      amount: '150.00',
      utr,
    });
    const imports = await s.call(statement.imports, { accountId: bank.accountId }, root);
    expect(imports.data.list.map((i: { id: number }) => i.id)).toContain(first.data.importId);
  });

  it("an order's channel UTR readies it too; the bank's feed pays by itself; another amount is an amount mismatch and pays nothing", async () => {
    const o = await order('160.00');
    const utr = newUtr();
    await s.db.update(payinOrders).set({ utr }).where(eq(payinOrders.id, o.id));
    const res = await importCsv(csv([{ narration: `NEFT CR-${utr}`, ref: utr, credit: '160.00' }]));
    expect(res.data.counts).toMatchObject({ new: 1, ready: 1, matched: 0 });
    expect((await orderById(s, o.id)).status).toBe('pending');

    // The same credit from the bank's own feed is the bank's word: it pays at once.
    const f = await order('161.00');
    const fedUtr = newUtr();
    await setPayerUtr(f.id, fedUtr);
    const fed = await importFeed(csv([{ narration: `UPI-${fedUtr}`, ref: fedUtr, credit: '161.00' }]));
    expect(fed.counts).toMatchObject({ new: 1, matched: 1, ready: 0 });
    expect(await orderById(s, f.id)).toMatchObject({ status: 'paid', paidBy: 'statement', utr: fedUtr });
    expect(await paymentsOf(f.id)).toEqual({ entries: 1, callbacks: 1 });

    const other = await order('200.00');
    const utr2 = newUtr();
    await setPayerUtr(other.id, utr2);
    const off = await importCsv(csv([{ narration: `UPI-${utr2}`, ref: utr2, credit: '199.00' }]));
    expect(off.data.counts).toMatchObject({ new: 1, matched: 0, exceptions: 1 });
    expect(await lineOf(utr2)).toMatchObject({
      status: 'exception',
      exceptionKind: 'amount_mismatch',
      candidatePayinId: other.id,
    });
    expect((await orderById(s, other.id)).status).toBe('pending');
  });

  it('by amount: one open order is proposed (paid on accept), two are ambiguous, none is unmatched', async () => {
    const one = await order('322.22');
    await order('311.11');
    await order('311.11');
    // A line dated before the orders were made is no payment of theirs.
    const early = new Date(s.clock.now().getTime() - 3 * 86_400_000).toLocaleDateString('en-CA', {
      timeZone: defaultBusinessTimeZone,
    });
    const res = await importCsv(
      csv([
        { narration: 'CASH DEPOSIT EARLY', credit: '322.22', day: early },
        { narration: 'CASH DEPOSIT ONE', credit: '322.22' },
        { narration: 'CASH DEPOSIT TWO', credit: '311.11' },
        { narration: 'CASH DEPOSIT THREE', credit: '333.33' },
      ]),
    );
    expect(res.data.counts).toMatchObject({ new: 4, matched: 0, ready: 0, proposed: 1, exceptions: 3 });
    expect(await lineOf('N:CASH DEPOSIT EARLY')).toMatchObject({ exceptionKind: 'unmatched' });
    const proposed = await lineOf('N:CASH DEPOSIT ONE');
    expect(proposed).toMatchObject({ status: 'proposed', candidatePayinId: one.id });
    expect((await orderById(s, one.id)).status).toBe('pending');
    expect(await lineOf('N:CASH DEPOSIT TWO')).toMatchObject({
      status: 'exception',
      exceptionKind: 'ambiguous',
    });
    const none = await lineOf('N:CASH DEPOSIT THREE');
    expect(none).toMatchObject({ status: 'exception', exceptionKind: 'unmatched' });

    const queue = await s.call(statement.exceptions, { accountId: bank.accountId }, root);
    expect(queue.errno, queue.errmsg).toBe(0);
    expect(queue.data.byKind.proposed).toBeGreaterThanOrEqual(1);
    expect(queue.data.byKind.ambiguous).toBeGreaterThanOrEqual(1);
    const proposals = await s.call(
      statement.exceptions,
      { accountId: bank.accountId, kind: 'proposed' },
      root,
    );
    expect(proposals.data.list.find((l: { id: number }) => l.id === proposed.id)).toMatchObject({
      candidateNo: one.orderNo,
      candidateAmount: '322.22',
    });

    const accepted = await post({ lineIds: [proposed.id, none.id] });
    expect(accepted.errno, accepted.errmsg).toBe(0);
    expect(accepted.data.matched).toBe(1);
    expect(accepted.data.refused).toEqual([{ lineId: none.id, message: expect.any(String) }]);
    expect(await orderById(s, one.id)).toMatchObject({
      status: 'paid',
      paidBy: 'statement',
      paidAmount: 32222,
    });
    expect(await lineOf('N:CASH DEPOSIT ONE')).toMatchObject({ status: 'matched', payinId: one.id });
    expect(await paymentsOf(one.id)).toEqual({ entries: 1, callbacks: 1 });
  });

  it('a UTR on a statement line pays one order only: another order cannot take it by supplement or force', async () => {
    const a = await order('140.00');
    const b = await order('140.00');
    const utr = newUtr();
    await setPayerUtr(a.id, utr);
    await setPayerUtr(b.id, utr);
    // Two orders claim the UTR with the amount: the line cannot tell which one paid.
    const res = await importCsv(csv([{ narration: `UPI-${utr}`, ref: utr, credit: '140.00' }]));
    expect(res.data.counts).toMatchObject({ exceptions: 1 });
    expect(await lineOf(utr)).toMatchObject({ exceptionKind: 'ambiguous' });
    const check = await s.call(merchantOrder.utrCheck, { id: a.id, utr: utr.toLowerCase() }, root);
    expect(check.data).toMatchObject({ found: true, source: 'statement', amount: '140.00', usedBy: null });
    // A person's statement pays only when posted: the supplement sends the operator to the queue.
    const sup = await s.call(merchantOrder.supplement, { id: a.id, utr }, root);
    expect(sup.errno).toBe(errno.statementNeedsPosting);
    expect(sup.data).toEqual({ lineId: (await lineOf(utr)).id });
    expect((await orderById(s, a.id)).status).toBe('pending');
    // Finance matches the line to A: it is A's now.
    const matched = await match((await lineOf(utr)).id, a.id);
    expect(matched.errno, matched.errmsg).toBe(0);
    expect(await orderById(s, a.id)).toMatchObject({ status: 'paid', paidBy: 'statement', utr });
    expect(await lineOf(utr)).toMatchObject({ status: 'matched', payinId: a.id });
    expect((await s.call(merchantOrder.supplement, { id: b.id, utr }, root)).errno).toBe(errno.utrUsed);
    const keyHolder = await s.makeKeyHolder([merchantOrder.forceSupplement.permission]);
    const forced = await s.call(
      merchantOrder.forceSupplement,
      { id: b.id, code: keyHolder.code(), reason: 'payer insists', utr },
      keyHolder.token,
    );
    expect(forced.errno).toBe(errno.utrUsed);
    const rematched = await s.call(statement.rematch, { accountId: bank.accountId }, root);
    expect(rematched.errno, rematched.errmsg).toBe(0);
    expect((await orderById(s, b.id)).status).toBe('pending');
    expect(await paymentsOf(a.id)).toEqual({ entries: 1, callbacks: 1 });
  });

  it('a UTR a forced supplement used pays no other order when its statement line comes', async () => {
    const forcedOrder = await order('130.00');
    const claimer = await order('130.00');
    const utr = newUtr();
    const keyHolder = await s.makeKeyHolder([merchantOrder.forceSupplement.permission]);
    const forced = await s.call(
      merchantOrder.forceSupplement,
      { id: forcedOrder.id, code: keyHolder.code(), reason: 'bank slip seen', utr },
      keyHolder.token,
    );
    expect(forced.errno, forced.errmsg).toBe(0);
    await setPayerUtr(claimer.id, utr);
    const res = await importCsv(csv([{ narration: `UPI-${utr}`, ref: utr, credit: '130.00' }]));
    expect(res.data.counts).toMatchObject({ new: 1, matched: 1 });
    // The line is the forced order's bank proof; the claimer stays unpaid.
    expect(await lineOf(utr)).toMatchObject({ status: 'matched', payinId: forcedOrder.id });
    expect((await orderById(s, claimer.id)).status).toBe('pending');
    expect(await paymentsOf(forcedOrder.id)).toEqual({ entries: 1, callbacks: 1 });
  });

  it('a line paid by statement: a supplement or force of another order with its UTR is refused', async () => {
    const a = await order('145.00');
    const b = await order('145.00');
    const utr = newUtr();
    await setPayerUtr(a.id, utr);
    const imported = await importCsv(csv([{ narration: `UPI-${utr}`, ref: utr, credit: '145.00' }]));
    expect(imported.data.counts).toMatchObject({ ready: 1 });
    expect((await post({ importId: imported.data.importId })).data.matched).toBe(1);
    expect((await s.call(merchantOrder.supplement, { id: b.id, utr }, root)).errno).toBe(errno.utrUsed);
    const keyHolder = await s.makeKeyHolder([merchantOrder.forceSupplement.permission]);
    expect(
      (
        await s.call(
          merchantOrder.forceSupplement,
          { id: b.id, code: keyHolder.code(), reason: 'x', utr },
          keyHolder.token,
        )
      ).errno,
    ).toBe(errno.utrUsed);
    expect((await orderById(s, b.id)).status).toBe('pending');
  });

  it('unreadable files, row errors, an oversized body and a zip bomb write nothing', async () => {
    const before = await written();
    const wrongColumns = await importCsv('Day,Text,Amount\n2026-11-01,x,1.00\n', {}, root);
    expect(wrongColumns.errno).toBe(errno.invalid);
    expect(wrongColumns.data.fields[0]).toMatchObject({
      path: 'file',
      message: expect.stringContaining('Date'),
    });
    const zh = await s.call(
      statement.import,
      { accountId: bank.accountId, mapping, text: 'Day,Text,Amount\n2026-11-01,x,1.00\n' },
      root,
      { 'accept-language': 'zh-CN' },
    );
    expect(zh.data.fields[0].path).toBe('text');
    expect(zh.data.fields[0].message).not.toBe(wrongColumns.data.fields[0].message);

    const badDate = await importCsv(
      csv([
        { narration: 'GOOD', credit: '1.00' },
        { narration: 'BAD', credit: '2.00', day: '2026-13-45' },
      ]),
    );
    expect(badDate.errno).toBe(errno.statementRows);
    expect(badDate.data.rows).toEqual([
      { row: 3, column: 'Date', code: 'date', message: expect.stringContaining('2026-13-45') },
    ]);

    const huge = JSON.stringify({ accountId: bank.accountId, mapping, file: 'A'.repeat(50 * 1024 * 1024) });
    const tooLarge = await s.request('POST', `/api${statement.import.path}`, {
      rawBody: huge,
      token: root,
      headers: { 'content-type': 'application/json' },
    });
    expect(tooLarge.status).toBe(413);

    const bomb = zipOf([
      { name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(1000), declared: 0xfffffff0 },
    ]);
    const bombed = await s.call(
      statement.import,
      { accountId: bank.accountId, mapping, file: bomb.toString('base64') },
      root,
    );
    expect(bombed.errno).toBe(errno.invalid);
    expect(bombed.data.fields[0]).toMatchObject({ path: 'file', message: expect.stringContaining('MB') });

    const noAccount = await s.call(
      statement.import,
      { accountId: 999_999, mapping, text: csv([{ narration: 'X', credit: '1.00' }]) },
      root,
    );
    expect(noAccount.errno).toBe(errno.notFound);
    expect(await written()).toEqual(before);
  });

  it("a mapping's own refusals answer their words in both languages", async () => {
    const input = { mapping: { ...mapping, utrPattern: '(unclosed' }, text: 'x' };
    const en = await s.call(statement.import, { accountId: bank.accountId, ...input }, root);
    expect(en.errno).toBe(errno.invalid);
    expect(en.data.fields[0]).toMatchObject({
      path: 'mapping.utrPattern',
      message: 'Not a regular expression with a group for the UTR',
    });
    const zh = await s.call(statement.import, { accountId: bank.accountId, ...input }, root, {
      'accept-language': 'zh-CN',
    });
    expect(zh.data.fields[0].message).toBe('不是带有 UTR 分组的正则表达式');
    const neither = await s.call(statement.import, { accountId: bank.accountId, mapping }, root);
    expect(neither.data.fields[0]).toMatchObject({ path: 'file', message: 'Give a file or pasted text' });
  });

  it('a dry run previews counts, duplicates, errors and gaps, and writes nothing', async () => {
    const utr = newUtr();
    const file = csv([{ narration: `UPI-${utr}`, ref: utr, credit: '12.00' }]);
    expect((await importCsv(file)).errno).toBe(0);
    const before = await written();
    const preview = await importCsv(`${file}${today()},NEW ONE,,,13.00\n${today()},BROKEN,,,abc\n`, {
      dryRun: true,
    });
    expect(preview.errno, preview.errmsg).toBe(0);
    expect(preview.data.importId).toBeNull();
    expect(preview.data.counts).toEqual({
      lines: 2,
      new: 1,
      duplicates: 1,
      matched: 0,
      ready: 0,
      proposed: 0,
      exceptions: 0,
    });
    expect(preview.data.preview.map((p: { duplicate: boolean }) => p.duplicate)).toEqual([true, false]);
    expect(preview.data.errors).toEqual([
      { row: 4, column: 'Credit', code: 'amount', message: expect.any(String) },
    ]);
    expect(await written()).toEqual(before);
  });

  it('detected without a mapping; rows that are no transaction skipped and kept; row errors left out by choice; totals over the file', async () => {
    const a = newUtr();
    const b = newUtr();
    // A bank's download: a title block above the table, a disclaimer below, one row that cannot be read.
    const text = `Statement of account,,,,
Account No :50100012345678,,,,
,,,,
Date,Narration,Ref,Debit,Credit
${today()},UPI-ASHA-${a},${a},,12.00
${today()},UPI-RAVI-${b},${b},,30.50
${today()},ATM CASH,,500.00,
${today()},BROKEN,,,abc
,,,,
"Unless the constituent notifies the bank within 14 days of any discrepancy, the statement is taken as correct",,,,
`;
    const input = {
      accountId: bank.accountId,
      file: Buffer.from(text).toString('base64'),
      fileName: 'dl.csv',
    };
    const preview = await s.call(statement.import, { ...input, dryRun: true }, root);
    expect(preview.errno, preview.errmsg).toBe(0);
    expect(preview.data).toMatchObject({
      format: 'csv',
      detected: true,
      mapping: {
        headerRow: 4,
        dateColumn: 'Date',
        dateFormat: 'yyyy-MM-dd',
        narrationColumn: 'Narration',
        referenceColumn: 'Ref',
        debitColumn: 'Debit',
        creditColumn: 'Credit',
      },
      totals: { credits: { count: 2, sum: '42.50' }, debits: { count: 1, sum: '500.00' } },
      skipped: { count: 2, rows: [{ row: 10, kind: 'text', text: expect.stringContaining('Unless') }] },
      errors: [{ row: 8, column: 'Credit', code: 'amount' }],
    });
    expect(preview.data.preview.map((l: { utr: string | null }) => l.utr)).toEqual([a, b, null]);

    // The detected mapping, saved and used again, reads the same.
    const saved = await s.call(
      statementMapping.save,
      { name: `detected ${a}`, bankName: 'Test', mapping: preview.data.mapping },
      root,
    );
    expect(saved.errno, saved.errmsg).toBe(0);

    // Row errors refuse the file unless the importer chooses to import the rest.
    const before = await written();
    expect((await s.call(statement.import, input, root)).errno).toBe(errno.statementRows);
    expect(await written()).toEqual(before);
    const done = await s.call(statement.import, { ...input, skipRowErrors: true, key: `skip-${a}` }, root);
    expect(done.errno, done.errmsg).toBe(0);
    expect(done.data.counts).toMatchObject({ lines: 3, new: 3 });
    const info = await s.call(statement.importInfo, { key: `skip-${a}` }, root);
    expect(info.data).toMatchObject({
      detected: true,
      totals: { credits: { count: 2, sum: '42.50' } },
      skipped: { count: 2 },
      errorRows: [{ row: 8, column: 'Credit', code: 'amount', message: expect.any(String) }],
    });
    // The same file again adds nothing.
    const again = await s.call(statement.import, { ...input, skipRowErrors: true }, root);
    expect(again.data.counts).toMatchObject({ lines: 3, new: 0, duplicates: 3 });
  });

  it("MT940 and camt.053: read without a mapping, each line's currency kept; the bank's INR feed pays, a line in another currency waits, another account's statement is refused", async () => {
    const [acct] = await s.db
      .select()
      .from(receivingAccounts)
      .where(eq(receivingAccounts.id, bank.accountId));
    const f = await order('1499.00');
    const utr = newUtr();
    await setPayerUtr(f.id, utr);
    const day = today().slice(2).replaceAll('-', '');
    // An INR statement in the SWIFT layout (the real samples, European banks', are in parse.test.ts).
    const mt940 = [
      ':20:STMT1',
      `:25:HDFC0001234/${acct!.accountNumber}`,
      ':28C:1/1',
      `:60F:C${day}INR100000,00`,
      `:61:${day}${day.slice(2)}CN1499,00NTRFNONREF//${utr}`,
      `:86:UPI/${utr}/ASHA RAO/asha@okicici`,
      `:61:${day}DN20,00NCHGNONREF`,
      ':86:CHARGES',
      `:62F:C${day}INR101479,00`,
      '-',
    ].join('\r\n');
    const preview = await s.call(
      statement.import,
      { accountId: bank.accountId, file: Buffer.from(mt940).toString('base64'), dryRun: true },
      root,
    );
    expect(preview.errno, preview.errmsg).toBe(0);
    expect(preview.data).toMatchObject({
      format: 'mt940',
      mapping: null,
      totals: { credits: { count: 1, sum: '1499.00' }, debits: { count: 1, sum: '20.00' } },
      gaps: [],
    });
    expect(preview.data.preview[0]).toMatchObject({
      utr,
      currency: 'INR',
      direction: 'credit',
      amount: '1499.00',
    });
    const fed = await importStatement(
      s.deps,
      1,
      { accountId: bank.accountId, file: Buffer.from(mt940).toString('base64'), fileName: 'feed.sta' },
      'en',
      'feed',
    );
    expect(fed.counts).toMatchObject({ lines: 2, new: 2, matched: 1 });
    expect(await orderById(s, f.id)).toMatchObject({ status: 'paid', paidBy: 'statement', utr });

    // The ISO 20022 example (SEK): read, kept, never paying an INR order.
    const iso = readFileSync(
      new URL('./samples/feeds/camt053-iso20022-business-example-v04.xml', import.meta.url),
    );
    const refused = await s.call(
      statement.import,
      { accountId: bank.accountId, file: iso.toString('base64'), dryRun: true },
      root,
    );
    expect(refused.errno).toBe(errno.invalid);
    expect(refused.data.fields[0].message).toContain(acct!.accountNumber);
    const isoAccount = await bankSetup(s);
    // Its account: <Acct><Id><Othr><Id>50000000054910000003.
    const named = /<Acct>\s*<Id>\s*<Othr>\s*<Id>([^<]+)</.exec(iso.toString('utf8'))![1]!;
    await s.db
      .update(receivingAccounts)
      .set({ accountNumber: named.replace(/\D/g, '').slice(-10) })
      .where(eq(receivingAccounts.id, isoAccount.accountId));
    const sek = await s.call(
      statement.import,
      { accountId: isoAccount.accountId, file: iso.toString('base64'), fileName: 'camt.xml' },
      isoAccount.root,
    );
    expect(sek.errno, sek.errmsg).toBe(0);
    expect(sek.data).toMatchObject({ format: 'camt053', counts: { lines: 3, new: 3, exceptions: 3 } });
    const kept = await s.db
      .select()
      .from(statementLines)
      .where(eq(statementLines.importId, sek.data.importId));
    expect(kept.map((l) => [l.currency, l.status, l.exceptionKind])).toEqual(
      Array(3).fill(['SEK', 'exception', 'currency']),
    );
  });

  it('the migration that brought the line identity in computes the same keys as the parser', async () => {
    const utr = newUtr();
    const same = { narration: `NO BALANCE ${utr}`, credit: '7.00' };
    expect(
      (await importCsv(csv([same, same, { narration: `REF ${utr}`, ref: utr, credit: '8.00' }]))).errno,
    ).toBe(0);
    const mine = and(
      eq(statementLines.accountId, bank.accountId),
      sql`${statementLines.narration} like ${`%${utr}`}`,
    );
    const keys = async () =>
      await s.db
        .select({ id: statementLines.id, key: statementLines.dedupeKey })
        .from(statementLines)
        .where(mine)
        .orderBy(statementLines.id);
    const parsed = await keys();
    expect(new Set(parsed.map((k) => k.key)).size).toBe(3);
    const migration = readFileSync(
      new URL('../../db/migrations/0022_statement_files.sql', import.meta.url),
      'utf8',
    );
    const update = migration.split('--> statement-breakpoint').at(-1)!;
    expect(update).toContain('UPDATE "statement_lines"');
    await s.db
      .update(statementLines)
      .set({ dedupeKey: sql`'old-' || ${statementLines.id}` })
      .where(mine);
    await s.db.execute(sql.raw(update));
    expect(await keys()).toEqual(parsed);
  });

  it("a merchant's user neither reads a statement credit nor pays an order with one", async () => {
    const utr = newUtr();
    await importCsv(csv([{ narration: `UPI-${utr}`, ref: utr, credit: '700.00' }]));
    expect(await lineOf(utr)).toMatchObject({ status: 'exception', exceptionKind: 'unmatched' });
    const own = await order('500.00');
    const user = await s.makeUser({
      kind: 'merchant',
      merchantId: bank.merchant.id,
      perms: [merchantOrder.utrCheck.permission!, merchantOrder.supplement.permission!],
    });
    for (const input of [{ utr }, { id: own.id, utr }]) {
      const check = await s.call(merchantOrder.utrCheck, input, user.token);
      expect(check.data).toMatchObject({ found: false, source: null, amount: null, account: null });
    }
    const sup = await s.call(merchantOrder.supplement, { id: own.id, utr }, user.token);
    expect(sup.errno).toBe(errno.utrNotFound);
    expect((await orderById(s, own.id)).status).toBe('pending');
    expect(await lineOf(utr)).toMatchObject({ status: 'exception', payinId: null });
    // The platform's user still reads it.
    const platform = await s.call(merchantOrder.utrCheck, { utr }, root);
    expect(platform.data).toMatchObject({ found: true, source: 'statement', amount: '700.00' });
  });

  it('finance matches, an operator dismisses but may not match; a merchant user is refused', async () => {
    const operator = await s.makeUser({
      perms: [statement.dismiss.permission, statement.list.permission, statement.import.permission],
    });
    const res = await importCsv(
      csv([
        { narration: 'TRANSFER IN A', credit: '271.10' },
        { narration: 'TRANSFER IN B', credit: '272.20' },
        { narration: 'BANK CHARGES', debit: '15.00' },
      ]),
    );
    expect(res.data.counts).toMatchObject({ new: 3, exceptions: 3 });
    const a = await lineOf('N:TRANSFER IN A');
    const charges = await lineOf('N:BANK CHARGES');
    const o = await order('271.10');
    const wrong = await order('272.20');

    // Deciding money is not the operator's.
    const refused = await s.call(
      statement.match,
      { lineId: a.id, orderId: o.id, reason: 'x', code: '000000' },
      operator.token,
    );
    expect(refused.errno).toBe(errno.forbidden);
    const mismatch = await match(a.id, wrong.id);
    expect(mismatch.errno).toBe(errno.invalid);
    expect(mismatch.data.fields[0].message).toContain('271.10');
    const matched = await match(a.id, o.id);
    expect(matched.errno, matched.errmsg).toBe(0);
    expect(matched.data).toMatchObject({
      status: 'matched',
      payinNo: o.orderNo,
      resolvedBy: poster.username,
    });
    expect(await orderById(s, o.id)).toMatchObject({ status: 'paid', paidBy: 'statement' });
    expect((await match(a.id, wrong.id)).errno).toBe(errno.conflict);
    const debit = await match(charges.id, wrong.id);
    expect(debit.errno).toBe(errno.invalid);

    const dismissed = await s.call(
      statement.dismiss,
      { lineId: charges.id, reason: 'bank charges' },
      operator.token,
    );
    expect(dismissed.errno, dismissed.errmsg).toBe(0);
    expect(await lineOf('N:BANK CHARGES')).toMatchObject({
      status: 'dismissed',
      exceptionKind: null,
      reason: 'bank charges',
      resolvedBy: operator.id,
    });
    expect(
      (await s.call(statement.dismiss, { lineIds: [charges.id], reason: 'again' }, operator.token)).errno,
    ).toBe(errno.conflict);

    const merchantUser = await s.makeUser({
      kind: 'merchant',
      merchantId: bank.merchant.id,
      perms: [statement.list.permission, statement.dismiss.permission],
    });
    expect((await s.call(statement.list, {}, merchantUser.token)).errno).toBe(errno.forbidden);
    const b = await lineOf('N:TRANSFER IN B');
    expect((await s.call(statement.dismiss, { lineId: b.id, reason: 'x' }, merchantUser.token)).errno).toBe(
      errno.forbidden,
    );
    expect((await lineOf('N:TRANSFER IN B')).status).toBe('exception');
  });

  it("a line proves only its own account's orders: matched or supplemented onto another account's order is refused", async () => {
    const other = await bankSetup(s);
    const elsewhere = (await bankPayin(s, other.merchant, { amount: '333.30' })).order;
    expect(elsewhere.receivingAccountId).toBe(other.accountId);
    const utr = newUtr();
    await importCsv(
      csv([{ narration: `UPI-R SEN-r@okaxis-UTIB0000001-${utr}-PAY`, ref: utr, credit: '333.30' }]),
    );
    const line = await lineOf(utr);
    const before = await written();
    const matched = await match(line.id, elsewhere.id);
    expect(matched.errno).toBe(errno.invalid);
    expect(matched.data.fields[0].message).toContain(elsewhere.orderNo);
    // The supplement finds the line through the channel's bound accounts, and still refuses it.
    await s.call(
      endpoints.cardBinding.create,
      { accountId: bank.accountId, channelId: other.channelId, weight: 1 },
      root,
    );
    const supplemented = await s.call(endpoints.merchantOrder.supplement, { id: elsewhere.id, utr }, root);
    expect(supplemented.errno).toBe(errno.utrMismatch);
    expect(await orderById(s, elsewhere.id)).toMatchObject({ status: 'pending', paidBy: null });
    expect((await lineOf(utr)).status).toBe('exception');
    expect(await written()).toEqual(before);
  });

  it("rematch readies the line once the payer's UTR is known; posting it pays", async () => {
    const o = await order('181.81');
    const utr = newUtr();
    const res = await importCsv(csv([{ narration: `IMPS-${utr}-MEERA`, ref: utr, credit: '181.81' }]));
    expect(res.data.counts).toMatchObject({ proposed: 1 });
    expect((await orderById(s, o.id)).status).toBe('pending');
    await setPayerUtr(o.id, utr);
    const again = await s.call(statement.rematch, { accountId: bank.accountId }, root);
    expect(again.errno, again.errmsg).toBe(0);
    expect(again.data.matched).toBe(0);
    // Lines of earlier tests still wait ready on this account: they count again.
    expect(again.data.ready).toBeGreaterThanOrEqual(1);
    expect(await lineOf(utr)).toMatchObject({ status: 'ready', candidatePayinId: o.id });
    expect((await orderById(s, o.id)).status).toBe('pending');
    expect((await post({ lineIds: [(await lineOf(utr)).id] })).data.matched).toBe(1);
    expect(await orderById(s, o.id)).toMatchObject({ status: 'paid', paidBy: 'statement', utr });
    expect(await lineOf(utr)).toMatchObject({ status: 'matched', payinId: o.id, candidatePayinId: null });
  });

  it('saved mappings: listed before the presets, names unique, used by an import', async () => {
    const name = `Mapping ${engine} ${newUtr()}`;
    const saved = await s.call(statementMapping.save, { name, bankName: 'Test Bank', mapping }, root);
    expect(saved.errno, saved.errmsg).toBe(0);
    expect((await s.call(statementMapping.save, { name, bankName: 'Other', mapping }, root)).errno).toBe(
      errno.conflict,
    );
    const list = await s.call(statementMapping.list, {}, root);
    const ids = list.data.list.map((m: { id: number | null; preset: string | null }) => m.preset ?? m.id);
    expect(ids.slice(-7)).toEqual(['hdfc', 'icici', 'sbi', 'axis', 'hdfcDelimited', 'kotak', 'bob']);
    expect(ids).toContain(saved.data.id);
    const res = await s.call(
      statement.import,
      {
        accountId: bank.accountId,
        mappingId: saved.data.id,
        text: csv([{ narration: 'BY MAPPING', credit: '9.99' }]),
      },
      root,
    );
    expect(res.errno, res.errmsg).toBe(0);
    expect((await s.call(statementMapping.delete, { id: saved.data.id }, root)).errno).toBe(0);
    const [imp] = await s.db
      .select()
      .from(statementImports)
      .where(eq(statementImports.id, res.data.importId));
    expect(imp).toMatchObject({ mappingId: null, format: 'text', mapping });
  });

  it('a debit naming a waiting slip line of its account proposes closing it; posted, it withdraws it and completes the payout', async () => {
    const channel = await s.call(
      endpoints.channel.create,
      {
        code: `mb_${engine}`,
        name: 'HDFC current',
        adapter: 'manual_bank',
        minAmount: '1.00',
        maxAmount: '1000000.00',
      },
      root,
    );
    expect(channel.errno, channel.errmsg).toBe(0);
    const owner = await merchantWithOwner(
      s,
      { channels: [{ channelId: channel.data.id, weight: 100 }] },
      { collection: 10_000_000, payout: 10_000_000 },
    );
    const made = await inTransaction(s.db, (tx) =>
      createPayout(
        s.deps,
        tx,
        owner.m,
        {
          amount: 43_210,
          accountName: 'Asha Verma',
          accountNumber: '123456789012',
          ifsc: 'SBIN0001234',
          notifyUrl: 'http://127.0.0.1:9/hook',
        },
        { source: 'console', lang: 'en' },
      ),
    );
    await drainQueue(s);
    const slipper = await s.makeKeyHolder(Object.values(endpoints.withdrawalSlip).map((e) => e.permission));
    const slip = await s.call(
      endpoints.withdrawalSlip.create,
      { format: 'generic_csv', accountId: bank.accountId, payoutIds: [made.order.id], code: slipper.code() },
      slipper.token,
    );
    expect(slip.errno, slip.errmsg).toBe(0);
    const [slipLine] = await s.db
      .select()
      .from(withdrawalSlipLines)
      .where(eq(withdrawalSlipLines.slipId, slip.data.id));
    const res = await importCsv(
      csv([
        {
          narration: `NEFT DR-SBIN0001234-ASHA VERMA-${slipLine!.narration}`,
          ref: 'N327261234567',
          debit: '432.10',
        },
        {
          narration: `NEFT DR-SBIN0001234-SOMEONE-${slipLine!.narration}`,
          ref: 'N327261234568',
          debit: '432.11',
        },
      ]),
    );
    expect(res.errno, res.errmsg).toBe(0);
    expect(res.data.counts).toMatchObject({ new: 2, matched: 0, ready: 1, exceptions: 1 });
    // Only a proposal: the slip line waits, and so does the payout.
    const [open] = await s.db
      .select()
      .from(withdrawalSlipLines)
      .where(eq(withdrawalSlipLines.id, slipLine!.id));
    expect(open!.status).toBe('to_be_withdrawn');
    const ready = await lineOf(`N:NEFT DR-SBIN0001234-ASHA VERMA-${slipLine!.narration}`);
    expect(ready).toMatchObject({ status: 'ready', candidateSlipLineId: slipLine!.id });
    // Posted by a finance user who did not write the slip: the slip's own rule closes it.
    const closer = await s.makeKeyHolder([statement.accept.permission]);
    const posted = await post({ lineIds: [ready.id] }, closer);
    expect(posted.data).toEqual({ matched: 1, refused: [], approval: null });
    const [closed] = await s.db
      .select()
      .from(withdrawalSlipLines)
      .where(eq(withdrawalSlipLines.id, slipLine!.id));
    expect(closed).toMatchObject({ status: 'withdrawn', reference: 'N327261234567' });
    const [payout] = await s.db.select().from(payoutOrders).where(eq(payoutOrders.id, made.order.id));
    expect(payout!.status).toBe('success');
    const listed = await s.call(statement.list, { accountId: bank.accountId, q: 'N327261234567' }, root);
    expect(listed.data.list[0]).toMatchObject({
      status: 'matched',
      slipLineId: slipLine!.id,
      slipNo: slip.data.slipNo,
    });
    expect((await lineOf(`N:NEFT DR-SBIN0001234-SOMEONE-${slipLine!.narration}`)).exceptionKind).toBe(
      'unmatched',
    );
  });

  it('the same file imported twice at once pays once', async () => {
    const o = await order('191.00');
    const utr = newUtr();
    await setPayerUtr(o.id, utr);
    const file = csv([
      { narration: `UPI-${utr}`, ref: utr, credit: '191.00' },
      ...Array.from({ length: 30 }, (_, i) => ({ narration: `FILLER ${utr} ${i}`, credit: '1.00' })),
    ]);
    // One import per person at a time: the same user's second is refused while the first runs.
    const same = await Promise.all([importCsv(file, {}, root), importCsv(file, {}, root)]);
    expect(same.map((r) => r.errno).sort()).toEqual([0, errno.statementImportRunning].sort());
    expect(same.find((r) => r.errno === 0)!.data.counts).toMatchObject({ new: 31, ready: 1 });
    // Two people at once: each line is saved once.
    const other = await s.makeUser({ perms: [statement.import.permission] });
    const more = csv(
      Array.from({ length: 30 }, (_, i) => ({ narration: `MORE ${utr} ${i}`, credit: '2.00' })),
    );
    const both = await Promise.all([importCsv(more, {}, root), importCsv(more, {}, other.token)]);
    for (const r of both) expect(r.errno, r.errmsg).toBe(0);
    expect(both.map((r) => r.data.counts.new).sort()).toEqual([0, 30]);
    const posted = [];
    for (const r of [...same.filter((x) => x.errno === 0), ...both])
      posted.push(await post({ importId: r.data.importId }));
    expect(posted.map((p) => p.data.matched).sort()).toEqual([0, 0, 1]);
    expect(await paymentsOf(o.id)).toEqual({ entries: 1, callbacks: 1 });
  });
});
