/**
 * Withdrawal slips end to end on the demo workspace, keyboard only: a merchant's bank settlement is
 * confirmed by one finance user; a second one opens the slips (`g i`), writes a new slip (`n`) in HDFC's
 * layout with the settlement chosen and the Google code, and the file downloads at once, the same bytes
 * the slip keeps; in the slip's drawer `w` marks the line withdrawn with the bank's reference, which
 * completes the settlement, and `d` downloads the kept file again.
 *
 * With SLIP_SHOTS_DIR set it also photographs the list, the new slip dialog and the drawer in both
 * languages at 1280 and 800 px:
 *   SLIP_SHOTS_DIR=/tmp/shots/slip E2E_PORT=8461 npx playwright test e2e/slip.spec.ts
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import {
  adminApi,
  demoMerchantOperator,
  nextCode,
  type Operator,
  platformOperator,
  signIn,
} from './orders-support.ts';
import { clientAs, financeUser } from './settlement-support.ts';
import { watchConsole } from './support.ts';

test.describe.configure({ mode: 'serial' });

const shots = process.env.SLIP_SHOTS_DIR ?? '';
let confirmer: Operator;
let sender: Operator;
let page: Page;
let errors: string[];
let settlementNo = '';

test.beforeAll(async ({ browser }) => {
  test.setTimeout(240_000);
  const admin = await adminApi();
  const merchant = await demoMerchantOperator();
  confirmer = await financeUser(admin, 'e2e_slipc');
  sender = await financeUser(admin, 'e2e_slips');
  await admin.dispose();
  const m = await clientAs(merchant);
  const applied = await m.ok<{ id: number; settlementNo: string }>('POST', '/settlementPayment/create', {
    type: 'bank',
    amount: '1234.50',
    accountName: "Zoë D'Souza & Sons, Traders",
    cardNumber: '50100234567891',
    ifsc: 'HDFC0001234',
    code: await nextCode(merchant.secret),
  });
  // For the photographs, a second candidate that stays unsent: the new slip dialog then has rows.
  const spare = shots
    ? await m.ok<{ id: number }>('POST', '/settlementPayment/create', {
        type: 'bank',
        amount: '2500.00',
        accountName: 'Sundaram Venkataraghavan Iyer Textiles Private Limited',
        cardNumber: '000405123456',
        ifsc: 'ICIC0000104',
        code: await nextCode(merchant.secret),
      })
    : null;
  await m.dispose();
  settlementNo = applied.settlementNo;
  const c = await clientAs(confirmer);
  for (const [id, auditAmount] of [[applied.id, '1200.00'], ...(spare ? [[spare.id, '2500.00']] : [])])
    await c.ok('POST', '/settlementPayment/confirm', {
      id,
      auditAmount,
      code: await nextCode(confirmer.secret),
    });
  await c.dispose();

  const context = await browser.newContext({
    locale: 'en-US',
    viewport: { width: 1280, height: 860 },
    acceptDownloads: true,
  });
  page = await context.newPage();
  errors = watchConsole(page);
  await signIn(page, sender);
});

test.afterEach(() => {
  expect(errors, 'console errors').toEqual([]);
});

test.afterAll(async () => {
  await page?.context().close();
});

/** Tabs forward until `target` has the focus (at most `limit` presses). */
async function tabTo(target: ReturnType<Page['locator']>, limit = 60) {
  for (let i = 0; i < limit; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error('the focus never reached the element');
}

test('keyboard only: write a slip, the file downloads; mark its line withdrawn; the settlement is settled', async () => {
  test.setTimeout(240_000);
  // The keys work once the user's permissions are in: the menu shows the screen then.
  // The menu's link (the dashboard's queue says 'Withdrawal slips at the bank' too).
  await expect(
    page
      .getByRole('navigation', { name: 'Menu' })
      .getByRole('link', { name: 'Withdrawal slips', exact: true }),
  ).toBeVisible();
  await page.locator('body').press('g');
  await page.keyboard.press('i');
  await expect(page).toHaveURL(/\/withdrawalslip$/);
  await expect(page.getByRole('heading', { name: 'Withdrawal slips' })).toBeVisible();

  await page.keyboard.press('n');
  const dialog = page.getByRole('dialog', { name: 'New withdrawal slip' });
  await expect(dialog).toBeVisible();
  const format = dialog.getByLabel('File layout');
  await expect(format).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(format).toHaveValue('hdfc_bulk');
  // The public account the bank pays it from: only its statement's debits may propose closing the line.
  const paidFrom = dialog.getByLabel('Paid from');
  // Its choices come from the API: the arrow waits for them (under load they come after the focus).
  await expect(paidFrom.locator('option').nth(1)).toBeAttached();
  await tabTo(paidFrom);
  await page.keyboard.press('ArrowDown');
  await expect(paidFrom).not.toHaveValue('');
  const mine = dialog.getByRole('checkbox', { name: `Settlement ${settlementNo}` });
  await tabTo(mine);
  await page.keyboard.press('Space');
  await expect(mine).toBeChecked();
  await expect(dialog.getByRole('status')).toContainText('1 chosen');
  await tabTo(dialog.getByLabel('Google code'));
  await page.keyboard.type(await nextCode(sender.secret));
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  await expect(dialog).toBeHidden();
  const saved = readFileSync(await download.path());
  const text = saved.toString('utf8');
  expect(download.suggestedFilename()).toMatch(/^WS\d{11}-HDFC\.txt$/);
  // The name cleaned and cut to HDFC's rule, the narration carrying the settlement number.
  expect(text).toMatch(
    new RegExp(`^N,,50100234567891,1200\\.00,Zoe DSouza and Sons Traders,(,){8}WS\\d{14},${settlementNo},`),
  );

  // The new slip is the list's first row once the list has taken it: open it from the keyboard.
  const slipNo = download.suggestedFilename().split('-')[0]!;
  await expect(page.getByRole('row').filter({ hasText: slipNo })).toBeVisible();
  await page.keyboard.press('j');
  await page.keyboard.press('Enter');
  const drawer = page.getByRole('dialog').filter({ hasText: 'Zoe DSouza and Sons Traders' });
  await expect(drawer).toBeVisible();
  expect(new URL(page.url()).searchParams.get('slip')).toMatch(/^\d+$/);
  if (shots) {
    await photograph();
    await expect(drawer).toBeVisible();
  }

  await page.keyboard.press('w');
  const withdraw = page.getByRole('dialog', { name: 'Mark withdrawn' });
  const reference = withdraw.getByLabel('Bank reference (UTR)');
  await expect(reference).toBeFocused();
  await page.keyboard.type('hdfcn52026111500042');
  await tabTo(withdraw.getByLabel('Google code'));
  await page.keyboard.type(await nextCode(sender.secret));
  await page.keyboard.press('Enter');
  await expect(withdraw).toBeHidden();
  await expect(drawer.getByText('HDFCN52026111500042')).toBeVisible();
  await expect(drawer.getByText('Withdrawn').first()).toBeVisible();

  const c = await clientAs(confirmer);
  const settled = await c.ok<{ status: string; reference: string }>('GET', '/settlementPayment/info', {
    settlementNo,
  });
  await c.dispose();
  expect(settled).toMatchObject({ status: 'settled', reference: 'HDFCN52026111500042' });

  // The kept file again, from the drawer's key.
  const [again] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('d')]);
  expect(Buffer.compare(readFileSync(await again.path()), saved)).toBe(0);
});

const languages = [
  { id: 'en', menu: 'Language', pick: '中文' },
  { id: 'zh_CN', menu: '语言', pick: 'English' },
] as const;

async function setLanguage(language: 'en' | 'zh_CN') {
  const current = await page.evaluate(() => document.documentElement.lang);
  if ((current === 'zh-CN') === (language === 'zh_CN')) return;
  const from = languages.find((l) => l.id !== language)!;
  await page.getByRole('button', { name: from.menu }).click();
  await page.getByRole('menuitemradio', { name: from.pick }).click();
  await expect(page.locator('html')).toHaveAttribute('lang', language === 'zh_CN' ? 'zh-CN' : 'en');
}

/** The list, the new slip dialog and a slip's drawer in both languages at 1280 and 800 px. */
async function photograph() {
  mkdirSync(shots, { recursive: true });
  const url = page.url();
  const shoot = async (name: string) => {
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(shots, name) });
  };
  for (const language of ['en', 'zh_CN'] as const) {
    await page.keyboard.press('Escape');
    await setLanguage(language);
    for (const width of [1280, 800]) {
      await page.setViewportSize({ width, height: 860 });
      await page.goto(url);
      await expect(page.getByRole('dialog')).toBeVisible();
      await shoot(`drawer-${language}-${width}.png`);
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toBeHidden();
      await shoot(`list-${language}-${width}.png`);
      await page.keyboard.press('n');
      await expect(page.getByRole('dialog')).toBeVisible();
      await shoot(`new-${language}-${width}.png`);
      await page.keyboard.press('Escape');
    }
  }
  await setLanguage('en');
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.goto(url);
  // The channel form offers the manual bank adapter, pay-ins off (a user who may create channels).
  const admin = await adminApi();
  const ops = await platformOperator(admin);
  await admin.dispose();
  const other = await page
    .context()
    .browser()!
    .newPage({ viewport: { width: 1280, height: 860 } });
  await signIn(other, ops);
  await other.goto('/channel');
  await other.getByRole('button', { name: 'New channel' }).click();
  const form = other.getByRole('dialog', { name: 'New channel' });
  await form.getByLabel('Provider adapter').selectOption('manual_bank');
  await expect(form.getByRole('checkbox', { name: 'Pay-ins' })).toBeDisabled();
  await other.waitForTimeout(400);
  await other.screenshot({ path: join(shots, 'channel-manual-bank-en-1280.png') });
  await other.close();
}
