/**
 * Order statistics end to end (OPERATIONS.md section 3): a platform operator opens the report from
 * Ctrl-K by its name; the last 7 business days are on screen; the CSV export of the same filters is
 * downloaded and read; its totals row is the report's, its rows add up to it, and the report's figures
 * equal the order lists' totals for the same business days (every pay-in, the paid ones, the successful
 * payouts). A row's p then opens the order list on that merchant's paid pay-ins of the day, whose
 * totals bar shows the row's count.
 */
import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { addDays, dayStart } from '../src/screens/stat/report.ts';
import { adminApi, type Operator, platformOperator, signIn } from './orders-support.ts';
import { type Api, grouped, watchConsole } from './support.ts';

test.describe.configure({ mode: 'serial' });

let admin: Api;
let operator: Operator;
let page: Page;
let errors: string[];

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  admin = await adminApi();
  operator = await platformOperator(admin);
  const context = await browser.newContext({
    locale: 'en-US',
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  page = await context.newPage();
  errors = watchConsole(page);
  await signIn(page, operator);
});

test.afterEach(() => {
  expect(errors, 'console errors').toEqual([]);
});

test.afterAll(async () => {
  await page?.context().close();
  await admin?.dispose();
});

interface OrderFigures {
  currency: string;
  payinCreated: number;
  payinPaid: number;
  payinPaidAmount: string;
  payinFee: string;
  payinNet: string;
  payoutCreated: number;
  payoutSucceeded: number;
  payoutAmount: string;
  payoutFee: string;
}
interface OrderStats {
  from: string;
  to: string;
  businessTimeZone: string;
  total: number;
  list: (OrderFigures & { day: string; merchantId: number; merchantCode: string })[];
  totals: OrderFigures[];
}
interface ListTotals {
  count: number;
  amount: string;
  countCapped: boolean;
}

/** A CSV file's records (quoted fields, doubled quotes, a byte-order mark). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quoted) {
      if (ch === '"' && body[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      record.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && body[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += ch;
  }
  if (field || record.length) records.push([...record, field]);
  return records.filter((r) => r.some((f) => f !== ''));
}

/** Minor units of an amount string ("1234.50" → 123450), so sums are exact. */
const minor = (amount: string) => Math.round(Number(amount) * 100);

/** The order statistics file's columns (merchant rows): day, merchant, currency, then the figures. */
const csvFigures = [
  'payinCreated',
  'payinPaid',
  'payinSuccessRate',
  'payinPaidAmount',
  'payinFee',
  'payinNet',
  'payoutCreated',
  'payoutSucceeded',
  'payoutAmount',
  'payoutFee',
] as const;

test('order statistics of the last 7 days: from Ctrl-K, exported, its totals the order lists’', async () => {
  test.setTimeout(90_000);
  // The shell (and its keys) is on screen once the dashboard's heading is: a key pressed while the
  // sign-in still navigates has no page to reach.
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette).toBeVisible();
  await page.keyboard.type('Order statistics');
  await expect(palette.getByRole('option', { name: /Order statistics/ })).toHaveAttribute(
    'aria-selected',
    'true',
  );
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/stat\/statorder$/);
  await expect(page.getByRole('heading', { name: 'Order statistics', level: 1 })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Period', exact: true })).toHaveValue('7d');

  // The report as the API answers it without a period: the last 7 business days, as the screen asks.
  const stats = await admin.ok<OrderStats>('GET', '/statOrder/list', { pageSize: '100' });
  const totals = page.getByRole('region', { name: 'Totals of the period' });
  await expect(totals.locator('.totals-item').filter({ hasText: 'Period' })).toContainText(
    `${stats.from} – ${stats.to}`,
  );
  expect(stats.totals.length, 'the demo trades in one currency').toBe(1);
  const sum = stats.totals[0]!;
  expect(sum.payinPaid).toBeGreaterThan(0);
  await expect(totals.locator('.totals-item').filter({ hasText: 'Paid amount' })).toContainText(
    `${grouped(sum.payinPaidAmount)} ${sum.currency}`,
  );

  // The export of the same filters: its totals row is the report's, its rows add up to it.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const path = await download.path();
  expect(path).toBeTruthy();
  const [header, ...records] = parseCsv(readFileSync(path!, 'utf8'));
  expect(header).toHaveLength(3 + csvFigures.length);
  const totalRows = records.filter((r) => r[0] === 'Total');
  const dayRows = records.filter((r) => r[0] !== 'Total');
  expect(totalRows).toHaveLength(1);
  expect(dayRows, 'every row of the report').toHaveLength(stats.total);
  const column = (id: (typeof csvFigures)[number]) => 3 + csvFigures.indexOf(id);
  const total = totalRows[0]!;
  expect(total[2]).toBe(sum.currency);
  for (const id of csvFigures) {
    if (id === 'payinSuccessRate') continue;
    const value = sum[id];
    if (typeof value === 'number') {
      expect(Number(total[column(id)]), id).toBe(value);
      expect(
        dayRows.reduce((s, r) => s + Number(r[column(id)]), 0),
        `${id}: the rows add up to the total`,
      ).toBe(value);
    } else {
      expect(minor(total[column(id)]!), id).toBe(minor(value));
      expect(
        dayRows.reduce((s, r) => s + minor(r[column(id)]!), 0),
        `${id}: the rows add up to the total`,
      ).toBe(minor(value));
    }
  }

  // The order lists over the same business days (their instants in the business time zone).
  const period = {
    from: dayStart(stats.from, stats.businessTimeZone).toISOString(),
    to: new Date(dayStart(addDays(stats.to, 1), stats.businessTimeZone).getTime() - 1).toISOString(),
  };
  const every = await admin.ok<ListTotals>('GET', '/merchantOrder/totals', period);
  const paid = await admin.ok<ListTotals>('GET', '/merchantOrder/totals', { ...period, status: 'paid' });
  const payouts = await admin.ok<ListTotals>('GET', '/merchantPayout/totals', period);
  const succeeded = await admin.ok<ListTotals>('GET', '/merchantPayout/totals', {
    ...period,
    status: 'success',
  });
  expect(every.countCapped || paid.countCapped || payouts.countCapped).toBe(false);
  expect(every.count, 'pay-ins created').toBe(sum.payinCreated);
  expect(paid.count, 'pay-ins paid').toBe(sum.payinPaid);
  expect(minor(paid.amount), 'paid amount').toBe(minor(sum.payinPaidAmount));
  expect(payouts.count, 'payouts created').toBe(sum.payoutCreated);
  expect(succeeded.count, 'payouts succeeded').toBe(sum.payoutSucceeded);
  expect(minor(succeeded.amount), 'payout amount').toBe(minor(sum.payoutAmount));
});

test('a row’s p opens the order list on its paid pay-ins, whose totals are the row’s', async () => {
  const stats = await admin.ok<OrderStats>('GET', '/statOrder/list', { pageSize: '100' });
  const row = stats.list.find((r) => r.payinPaid > 0);
  expect(row, 'a row with paid pay-ins').toBeTruthy();
  const table = page.getByRole('grid', { name: 'Order statistics' });
  const line = table
    .getByRole('row')
    .filter({ hasText: row!.day })
    .filter({ hasText: row!.merchantCode })
    .first();
  // A figure's cell, not the check box: the click focuses the row the keys act on.
  await line.locator('td').nth(3).click();
  await page.keyboard.press('p');
  await expect(page).toHaveURL(/\/order\?.*status=paid/);
  expect(new URL(page.url()).searchParams.get('merchantId')).toBe(String(row!.merchantId));
  const listTotals = page.getByRole('region', { name: 'Totals of the filtered orders' });
  await expect(listTotals.locator('.totals-item').filter({ hasText: 'Orders' })).toContainText(
    grouped(row!.payinPaid),
  );
  await expect(listTotals.locator('.totals-item').filter({ hasText: 'Amount' })).toContainText(
    grouped(row!.payinPaidAmount),
  );
});

test('the unproved orders opened without their day ask for it, then list every account’s of that day', async () => {
  await page.goto('/stat/unproved');
  await expect(page.getByRole('heading', { name: 'Paid with no statement line', level: 1 })).toBeVisible();
  // Today's business day is offered.
  await expect(page.getByLabel('Business day')).toHaveValue(/^\d{4}-\d{2}-\d{2}$/);
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(page).toHaveURL(/\/stat\/unproved\?day=\d{4}-\d{2}-\d{2}$/);
  await expect(
    page.getByRole('heading', { name: /^Paid with no statement line: every account, \d{4}/ }),
  ).toBeVisible();
  await expect(page.getByText('No such orders.').or(page.locator('.mini-table'))).toBeVisible();
});
