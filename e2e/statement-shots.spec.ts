import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { adminApi, nextCode, platformOperator, signIn } from './orders-support.ts';
import { setLanguage, shooter, widths } from './shots.ts';
import { bankWorkspace, hdfcStatement, importByApi, postByApi } from './statement-support.ts';
import { Api, watchConsole } from './support.ts';

// Screenshots of the bank statement screens for people to look at, in both languages, at 1280 and 800 px:
//   STATEMENT_SHOTS_DIR=/work/notes/shots E2E_PORT=8413 npx playwright test e2e/statement-shots.spec.ts
// Skipped unless STATEMENT_SHOTS_DIR is set: the import preview (with a row that cannot be read and a
// balance gap), the exception queue and the reconciliation.

const dir = process.env.STATEMENT_SHOTS_DIR ?? '';
test.skip(!dir, 'screenshots are taken on demand (STATEMENT_SHOTS_DIR)');

const shoot = shooter(dir);

test('statement import preview, exception queue, reconciliation', async ({ browser }) => {
  test.setTimeout(300_000);
  mkdirSync(dir, { recursive: true });
  const admin = await adminApi();
  const operator = await platformOperator(admin);
  const bank = await bankWorkspace(admin, true);
  const statement = hdfcStatement(bank);
  // The preview's file: the statement, then a date that does not exist and a balance that skips a line.
  const [header, ...lines] = statement.trim().split('\n');
  const day = lines[0]?.split(',')[0] ?? '';
  // A download as the bank gives it: a title block above the table; no mapping chosen, the layout detected.
  const previewText = [
    'HDFC BANK Ltd.',
    'Account No :50100012345678',
    header,
    ...lines,
    `31/11/26,NEFT CR-SBIN0001234-RAVI KUMAR-SBIN426305${bank.stamp.slice(-6)},,${day},,"25,000.00","1,50,000.00"`,
    `${day},IMPS-631612345679-MEERA S-HDFC-XXXXXX1234-REFUND,0000631612345679,${day},"2,000.00",,"90,000.00"`,
  ].join('\n');
  // The queue and the reconciliation: the statement imported (one line ready to post, one proposed, one
  // ambiguous), then its ready line posted by finance.
  const imported = await importByApi(admin, bank, statement);
  expect(imported.counts).toMatchObject({ ready: 1, proposed: 1, exceptions: 3 });
  expect(await postByApi(operator, imported.importId)).toMatchObject({ matched: 1 });
  await admin.dispose();

  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = watchConsole(page);
  await signIn(page, operator);
  for (const language of ['en', 'zh_CN'] as const) {
    for (const width of widths) {
      await page.setViewportSize({ width, height: width < 1000 ? 1100 : 900 });
      await page.goto(`/receiving/statements?accountId=${bank.accountId}`);
      await setLanguage(page, language);
      await page.locator('form.statement-import textarea').fill(previewText);
      await shoot(page, 'statement-import', language, width);
      await page.locator('form.statement-import button[type="submit"]').click();
      await expect(page.locator('.statement-table.bad')).toBeVisible();
      await expect(page.getByTestId('statement-read')).toContainText('HDFC');
      await page.locator('.statement-preview').scrollIntoViewIfNeeded();
      await shoot(page, 'statement-preview', language, width);

      await page.goto('/receiving/exceptions');
      await expect(page.getByRole('grid').getByRole('row').nth(1)).toBeVisible();
      await expect(page.locator('.statement-kinds [data-kind="ambiguous"]')).toContainText(/[1-9]/);
      await shoot(page, 'statement-queue', language, width);

      await page.goto('/stat/stataccount');
      await expect(page.getByRole('grid').getByRole('row').nth(1)).toBeVisible();
      await shoot(page, 'reconciliation', language, width);
    }
  }
  // How a day that does not tie looks: the answer altered on its way to the console.
  await page.route('**/api/statOrder/balance?**', async (route) => {
    const answer = await (await route.fetch()).json();
    // An order paid without a statement line: paid and unproved grow by 500.00, and so does the difference.
    for (const figures of [answer.data.list[0], answer.data.totals[0]]) {
      Object.assign(figures, {
        paid: { count: figures.paid.count + 1, sum: (Number(figures.paid.sum) + 500).toFixed(2) },
        unproved: { count: figures.unproved.count + 1, sum: (Number(figures.unproved.sum) + 500).toFixed(2) },
        difference: (Number(figures.difference) + 500).toFixed(2),
      });
    }
    // And no statement line kept for it: the row says the statement is missing; the next row's balance
    // does not follow its previous day's (a gap between two imports).
    answer.data.list[0].statement = 'missing';
    if (answer.data.list[1]) answer.data.list[1].statement = 'gap';
    await route.fulfill({ json: answer });
  });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/stat/stataccount');
  await expect(page.locator('.recon-differs').first()).toBeVisible();
  await shoot(page, 'reconciliation-differs', 'zh_CN', 1280);
  await page.unroute('**/api/statOrder/balance?**');
  await page.goto(`/receiving/statement?accountId=${bank.accountId}`);
  await expect(page.getByRole('grid').getByRole('row').nth(5)).toBeVisible();
  await shoot(page, 'statement-lines', 'zh_CN', 1280);
  await page.setViewportSize({ width: 800, height: 1100 });
  await page.goto('/stat/stataccount?by=channel');
  await expect(page.getByRole('grid').getByRole('row').nth(1)).toBeVisible();
  await shoot(page, 'reconciliation-channel', 'zh_CN', 800);
  expect(errors).toEqual([]);
  await context.close();
});

test('bank feed dialog (SFTP) on a receiving account', async ({ browser }) => {
  test.setTimeout(120_000);
  mkdirSync(dir, { recursive: true });
  const admin = await adminApi();
  const operator = await platformOperator(admin);
  const bank = await bankWorkspace(admin);
  await admin.dispose();
  // A feed asked to be switched on: the dialog says it waits for a second person.
  const asker = await Api.create();
  await asker.signInWithCode(operator.username, operator.password, await nextCode(operator.secret));
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const asked = await asker.call('POST', '/statementFeed/save', {
    accountId: bank.accountId,
    host: 'sftp.hdfcbank.example',
    username: 'collections',
    privateKey,
    hostKeyFingerprint: `SHA256:${'A'.repeat(43)}`,
    folder: '/outgoing/statements',
    pattern: '*.sta',
    code: await nextCode(operator.secret),
  });
  expect(asked.errno, asked.errmsg).toBe(1043);
  await asker.dispose();
  const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
  await signIn(page, operator);
  for (const language of ['en', 'zh_CN'] as const) {
    for (const width of widths) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/receiving/public');
      await setLanguage(page, language);
      await expect(page.getByRole('grid').getByRole('row').nth(1)).toBeVisible();
      await page.keyboard.press('j');
      await page.keyboard.press('l');
      await expect(page.getByRole('dialog')).toBeVisible();
      await shoot(page, 'statement-feed', language, width);
      await page.keyboard.press('Escape');
    }
  }
});
