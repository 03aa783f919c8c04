import { createHmac, randomBytes } from 'node:crypto';
import { type APIResponse, expect, type Page, request, test } from '@playwright/test';
import { adminApi } from './orders-support.ts';
import { type Api, adminPassword, baseURL, cursorOnOnlyRow, grouped, watchConsole } from './support.ts';

// The platform screens on the demo workspace, by keyboard: a merchant created and its secrets shown
// once, frozen and unfrozen; the dashboard's figures and queue links; the simulated users' keys.

let page: Page;
let errors: string[];
let api: Api;

interface Secrets {
  code: string;
  apiSecret: string;
  webhookSecret: string;
}
let made: Secrets;
const stamp = Date.now().toString(36);

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  api = await adminApi();
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  errors = watchConsole(page);
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill(adminPassword);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/dashboard$/);
  // The URL moves before the shell's chunk has mounted: its keys work once the home screen shows.
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
});

test.afterEach(() => {
  expect(errors, 'console errors').toEqual([]);
});

test.afterAll(async () => {
  await api.dispose();
  await page.context().close();
});

/** A signed call of the merchant gateway with the merchant's API secret (GATEWAY.md). */
async function gateway(secrets: Secrets, path: string, body: Record<string, unknown>): Promise<APIResponse> {
  const http = await request.newContext({ baseURL });
  const raw = JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(12).toString('hex');
  const signature = createHmac('sha256', secrets.apiSecret)
    .update(`${timestamp}\n${nonce}\nPOST\n${path}\n${raw}`)
    .digest('hex');
  const answer = await http.post(path, {
    data: raw,
    headers: {
      'content-type': 'application/json',
      'x-merchant-id': secrets.code,
      'x-timestamp': timestamp,
      'x-nonce': nonce,
      'x-signature': signature,
    },
  });
  await answer.body();
  await http.dispose();
  return answer;
}

const payin = (merchantOrderNo: string) =>
  gateway(made, '/gateway/v1/payin', {
    merchantOrderNo,
    amount: '750.00',
    notifyUrl: `${baseURL}/demo/callback`,
  });

async function payinStatus(orderNo: string): Promise<string> {
  return (await api.ok<{ status: string }>('GET', '/merchantOrder/info', { orderNo })).status;
}

test('merchant: created by keyboard, its code and secrets shown once', async () => {
  await page.keyboard.press('g');
  await page.keyboard.press('n');
  await expect(page.getByRole('heading', { name: 'Merchants', level: 1 })).toBeVisible();

  await page.keyboard.press('Control+k');
  await expect(page.getByRole('dialog', { name: 'Command palette' })).toBeVisible();
  await page.keyboard.type('New merchant');
  await expect(page.getByRole('option', { name: /New merchant/ })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  const form = page.getByRole('dialog', { name: 'New merchant' });
  await expect(form.getByLabel('Name', { exact: true })).toBeFocused();

  // A wrong form first: the contract's own checks answer next to the fields, in words.
  await page.keyboard.type(`E2E Spice Traders ${stamp}`);
  await page.keyboard.press('Enter');
  await expect(form.getByText('Some information is not filled in')).toHaveCount(1);
  await expect(form.getByLabel('Owner username', { exact: true })).toBeFocused();

  await page.keyboard.type(`spice_${stamp}`);
  await page.keyboard.press('Tab');
  await page.keyboard.type('Owner1234');
  await page.keyboard.press('Tab');
  await page.keyboard.type(`spice_${stamp}@example.com`);
  await page.keyboard.press('Tab');
  await expect(form.getByLabel('Collection rate', { exact: true })).toBeFocused();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('2.75');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(form.getByLabel('Payout rate', { exact: true })).toBeFocused();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('1.1');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+a');
  await page.keyboard.type('6.00');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(form.getByLabel('Minimum order amount', { exact: true })).toBeFocused();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('500.00');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+a');
  await page.keyboard.type('100.00');
  await page.keyboard.press('Enter');
  // Max below min is refused by the same schema the server uses, and nothing is created.
  await expect(form.getByText('The maximum amount may not be lower than the minimum')).toBeVisible();
  await expect(form.getByLabel('Maximum order amount', { exact: true })).toBeFocused();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('20000.00');
  await page.keyboard.press('Tab');
  await expect(form.getByLabel('Settlement cycle', { exact: true })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Tab');
  await expect(form.getByLabel('Days (N)', { exact: true })).toBeFocused();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('2');
  // What taking money out of a wallet costs: a rate and a fixed fee.
  await page.keyboard.press('Tab');
  await expect(form.getByLabel('Settlement rate', { exact: true })).toBeFocused();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('0.5');
  await page.keyboard.press('Tab');
  await expect(form.getByLabel('Fee per settlement', { exact: true })).toBeFocused();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('10.00');
  // Every active channel is ticked by default: the simulator's route stays, at weight 60; the others
  // (the demo's and other specs' bank channels) are unticked with Space on the way to the callback URL.
  const callbackUrl = form.getByLabel('Callback URL', { exact: true });
  const focused = () =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement | null;
      return {
        box: el?.type === 'checkbox',
        checked: !!el?.checked,
        simulator: el?.closest('label')?.querySelector('code')?.textContent === 'simulator',
        url: el?.type === 'url',
      };
    });
  for (let tabs = 0; tabs < 30; tabs++) {
    await page.keyboard.press('Tab');
    const at = await focused();
    if (at.url) break;
    if (at.box && at.simulator) {
      await page.keyboard.press('Tab');
      await page.keyboard.press('Control+a');
      await page.keyboard.type('60');
    } else if (at.box && at.checked) await page.keyboard.press('Space');
  }
  await expect(callbackUrl).toBeFocused();
  await page.keyboard.type(`${baseURL}/demo/callback`);
  await page.keyboard.press('Tab');
  await page.keyboard.type('127.0.0.1\n10.20.0.0/16');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(form.getByRole('button', { name: 'Create merchant' })).toBeFocused();
  await page.keyboard.press('Enter');

  const shown = page.getByRole('dialog', { name: /^Merchant M\d+ created$/ });
  await expect(shown).toBeVisible();
  made = {
    code: (await shown.locator('[data-secret="code"]').textContent()) ?? '',
    apiSecret: (await shown.locator('[data-secret="api"]').textContent()) ?? '',
    webhookSecret: (await shown.locator('[data-secret="webhook"]').textContent()) ?? '',
  };
  expect(made.code).toMatch(/^M\d+$/);
  expect(made.apiSecret).toMatch(/^sk_[0-9a-f]{64}$/);
  expect(made.webhookSecret).toMatch(/^whsec_/);
  await expect(shown.getByRole('button', { name: /^Copy / })).toHaveCount(3);
  // Escape does not lose them; only saying they are saved closes the dialog.
  await page.keyboard.press('Escape');
  await expect(shown).toBeVisible();
  await expect(shown.getByRole('button', { name: 'I have saved them' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(shown).toHaveCount(0);

  // The terms were stored as typed.
  const stored = await api.ok<{ list: Record<string, unknown>[] }>('GET', '/merchant/list', { q: made.code });
  expect(stored.list[0]).toMatchObject({
    code: made.code,
    collectionRate: '2.75',
    payoutRate: '1.1',
    payoutFee: '6.00',
    minAmount: '500.00',
    maxAmount: '20000.00',
    settlementCycle: 'T2',
    settlementRate: '0.5',
    settlementFee: '10.00',
    payoutIpWhitelist: ['127.0.0.1', '10.20.0.0/16'],
    channels: [expect.objectContaining({ code: 'simulator', weight: 60 })],
  });

  // Found again by its code (filters live in the URL), its drawer shows the secrets only masked.
  await page.goto(`/merchant?q=${made.code}`);
  const grid = page.getByRole('grid', { name: 'Merchants' });
  await expect(grid.getByRole('row')).toHaveCount(2);
  await cursorOnOnlyRow(page, grid);
  await page.keyboard.press('Enter');
  const drawer = page.getByRole('dialog', { name: new RegExp(`^${made.code} · `) });
  await expect(drawer.getByText(`${made.apiSecret.slice(0, 8)}…${made.apiSecret.slice(-4)}`)).toBeVisible();
  await expect(drawer.getByText('T+2')).toBeVisible();
  await expect(page.locator('body')).not.toContainText(made.apiSecret);
  await expect(page.locator('body')).not.toContainText(made.webhookSecret);
  await page.keyboard.press('Escape');

  // The secret shown once is the one the gateway checks.
  expect((await payin(`e2e-${stamp}-a`)).status()).toBe(201);
});

test('merchant: frozen by its key behind a danger confirmation, then unfrozen', async () => {
  const grid = page.getByRole('grid', { name: 'Merchants' });
  await page.keyboard.press('j');
  await page.keyboard.press('z');
  const dialog = page.getByRole('dialog', { name: new RegExp(`^Freeze ${made.code} `) });
  await expect(dialog.getByLabel('Reason (for the operation log)', { exact: true })).toBeFocused();
  await expect(dialog.getByRole('button', { name: 'Freeze merchant' })).toHaveClass(/danger/);
  await page.keyboard.type('Chargebacks under review');
  await page.keyboard.press('Enter');
  await expect(page.getByText(`${made.code} is frozen`)).toBeVisible();
  await expect(grid.getByRole('row').nth(1)).toContainText('Frozen');
  // Frozen means the gateway refuses it.
  expect((await payin(`e2e-${stamp}-b`)).status()).toBe(403);

  await page.keyboard.press('j');
  await page.keyboard.press('z');
  const confirm = page.getByRole('alertdialog', { name: 'Unfreeze merchant' });
  await expect(confirm).toContainText(`Unfreeze ${made.code}`);
  await page.keyboard.press('Tab');
  await expect(confirm.getByRole('button', { name: 'Unfreeze merchant' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(grid.getByRole('row').nth(1)).toContainText('Active');
  expect((await payin(`e2e-${stamp}-c`)).status()).toBe(201);
});

test('simulator: P pays a waiting pay-in and the order turns paid with its callback delivered', async () => {
  const created = await api.ok<{ list: { orderNo: string; merchantOrderNo: string }[] }>(
    'GET',
    '/merchantOrder/list',
    {
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() + 3_600_000).toISOString(),
      q: `e2e-${stamp}-c`,
    },
  );
  const orderNo = created.list[0]?.orderNo ?? '';
  expect(orderNo).toMatch(/^PI\d+/);
  expect(await payinStatus(orderNo)).toBe('pending');

  await page.keyboard.press('g');
  await page.keyboard.press('u');
  await expect(page.getByRole('heading', { name: 'Simulated users', level: 1 })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Pay-ins waiting' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('/');
  await page.keyboard.type(orderNo);
  await page.keyboard.press('Enter');
  const grid = page.getByRole('grid', { name: 'Pay-ins waiting' });
  await expect(grid.getByRole('row')).toHaveCount(2);
  await expect(grid.getByRole('row').nth(1)).toContainText(made.code);
  await page.keyboard.press('Escape');
  await page.keyboard.press('j');
  await page.keyboard.press('p');
  await expect(page.getByText(new RegExp(`${orderNo} paid, UTR \\d{12}`))).toBeVisible();
  await expect(grid.getByText('No records')).toBeVisible();

  expect(await payinStatus(orderNo)).toBe('paid');
  await expect
    .poll(
      async () =>
        (await api.ok<{ pushStatus: string }>('GET', '/merchantOrder/info', { orderNo })).pushStatus,
    )
    .toBe('pushed');
});

test('simulator: L pays with the callback lost and shows the UTR to supplement with', async () => {
  expect((await payin(`e2e-${stamp}-d`)).status()).toBe(201);
  const { list } = await api.ok<{ list: { orderNo: string }[] }>('GET', '/merchantOrder/list', {
    from: new Date(Date.now() - 3_600_000).toISOString(),
    to: new Date(Date.now() + 3_600_000).toISOString(),
    q: `e2e-${stamp}-d`,
  });
  const orderNo = list[0]?.orderNo ?? '';
  await page.getByRole('searchbox', { name: 'Order number' }).fill(orderNo);
  await page.keyboard.press('Enter');
  const grid = page.getByRole('grid', { name: 'Pay-ins waiting' });
  await expect(grid.getByRole('row').nth(1)).toContainText(orderNo);
  await page.keyboard.press('Escape');
  await page.keyboard.press('j');
  await page.keyboard.press('l');
  const lost = page.getByRole('dialog', { name: 'Paid, callback lost' });
  const utr = (await lost.locator('[data-utr]').textContent()) ?? '';
  expect(utr).toMatch(/^\d{12}$/);
  await page.keyboard.press('Enter');
  // Paid at the channel only: the order still waits until someone supplements it with that UTR.
  expect(await payinStatus(orderNo)).toBe('pending');
  const check = await api.ok<{ found: boolean; matchesOrder: boolean }>('POST', '/merchantOrder/utrCheck', {
    utr,
    id: (await api.ok<{ id: number }>('GET', '/merchantOrder/info', { orderNo })).id,
  });
  expect(check).toMatchObject({ found: true, matchesOrder: true });
});

test('simulator: P completes a processing payout', async () => {
  await page.getByRole('tab', { name: 'Payouts processing' }).click();
  await expect(page).toHaveURL(/kind=payout/);
  const grid = page.getByRole('grid', { name: 'Payouts processing' });
  // The first order's row, not the one that says "Loading…" until the list answers.
  const first = grid.locator('tr[aria-rowindex="2"]');
  await expect(first).toBeVisible();
  const orderNo = ((await first.locator('code').first().textContent()) ?? '').trim();
  expect(orderNo).toMatch(/^PO\d+/);
  await first.focus();
  await page.keyboard.press('p');
  await expect(page.getByText(`Payout ${orderNo} completed`)).toBeVisible();
  expect((await api.ok<{ status: string }>('GET', '/merchantPayout/info', { orderNo })).status).toBe(
    'success',
  );
});

test('dashboard: figures, charts, and queue links that land on filtered lists', async () => {
  await page.keyboard.press('g');
  await page.keyboard.press('d');
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  const summary = await api.ok<{
    last30Days: { payin: { amount: string; count: number }[] };
    queues: { payoutsProcessing: number; rechargesPending: number };
  }>('GET', '/dashboard/summary');

  await page.getByRole('button', { name: 'Last 30 days' }).click();
  await expect(page).toHaveURL(/period=30d/);
  const collections = page.getByRole('region', { name: 'Collections' });
  const inr = summary.last30Days.payin[0];
  expect(Number(inr?.count)).toBeGreaterThan(1000);
  await expect(collections).toContainText(grouped(inr?.amount ?? ''));
  await expect(
    page.getByRole('img', { name: /Collections and payouts per day, last 30 days, INR/ }),
  ).toBeVisible();
  await expect(page.getByRole('meter', { name: 'Simulator' })).toBeVisible();

  expect(summary.queues.payoutsProcessing).toBeGreaterThan(0);
  expect(summary.queues.rechargesPending).toBeGreaterThan(0);
  const queues = page.getByRole('region', { name: 'Needs a person' });
  await expect(queues.getByRole('link', { name: /Payouts processing/ })).toContainText(
    String(summary.queues.payoutsProcessing),
  );
  // Payouts whose hand-over to the channel was unclear: none in the demo, and the link lists exactly those.
  await expect(queues.getByRole('link', { name: /Payouts to review/ })).toHaveAttribute(
    'href',
    '/payout?range=60d&status=needs_review',
  );
  await queues.getByRole('link', { name: /Recharges to confirm/ }).click();
  await expect(page).toHaveURL(/\/merchantrechargelog\?status=pending$/);
  const recharges = page.getByRole('grid');
  await expect(recharges.getByRole('row')).toHaveCount(summary.queues.rechargesPending + 1);
  await expect(recharges.getByRole('row').nth(1)).toContainText('Pending');

  await page.goBack();
  await page
    .getByRole('region', { name: 'Needs a person' })
    .getByRole('link', { name: /Payouts processing/ })
    .click();
  // Those with the channel and those being handed to it.
  await expect(page).toHaveURL(/\/payout\?range=60d&status=submitting&status=processing$/);
  const payouts = page.getByRole('grid');
  await expect(payouts.getByRole('row')).toHaveCount(summary.queues.payoutsProcessing + 1);
  for (const row of await payouts.getByRole('row').all()) {
    if ((await row.getAttribute('aria-rowindex')) !== '1')
      await expect(row).toContainText(/Processing|Sending to the channel/);
  }
});

test("dashboard: one merchant's figures, its queues and links narrowed to it", async () => {
  const merchants = await api.ok<{ list: { id: number; code: string }[] }>('GET', '/merchant/list', {
    q: 'M10003',
  });
  const masala = merchants.list.find((m) => m.code === 'M10003')!;
  const own = await api.ok<{
    last30Days: { payin: { amount: string }[] };
    queues: Record<string, number | null>;
  }>('GET', '/dashboard/summary', { merchantId: masala.id });
  expect(own.queues.approvalsPending, "the platform's own queues are not one merchant's").toBeNull();

  await page.goto(`/dashboard?period=30d&merchantId=${masala.id}`);
  const collections = page.getByRole('region', { name: 'Collections' });
  await expect(collections).toContainText(grouped(own.last30Days.payin[0]?.amount ?? ''));
  await expect(collections.getByRole('link', { name: 'Open the list' })).toHaveAttribute(
    'href',
    `/order?range=30d&merchantId=${masala.id}`,
  );
  const queues = page.getByRole('region', { name: 'Needs a person' });
  await expect(queues.getByRole('link', { name: /Payouts processing/ })).toHaveAttribute(
    'href',
    new RegExp(`merchantId=${masala.id}$`),
  );
  await expect(queues.getByRole('link', { name: /Approvals waiting/ })).toHaveCount(0);
});

test('dashboard: a queue people work every day, in the panel and in the palette, by keys', async () => {
  await page.keyboard.press('g');
  await page.keyboard.press('d');
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  const { queues } = await api.ok<{ queues: Record<string, number | null> }>('GET', '/dashboard/summary');
  // The demo's applications waiting for the platform: one today, one whose confirmation awaits a second person.
  const waiting = queues.settlementsToConfirm ?? 0;
  expect(waiting).toBeGreaterThan(0);
  const panel = page.getByRole('region', { name: 'Needs a person' });
  const link = panel.getByRole('link', { name: /Settlements to confirm/ });
  await expect(link).toContainText(String(waiting));
  await expect(link).toHaveAttribute('href', '/settlementquery?status=to_be_confirmed');

  // The palette offers the same queue with its live count, chosen first; Enter follows the same link.
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette).toBeVisible();
  await page.keyboard.type('settlements to confirm');
  // Once every provider has answered the whole term: an earlier answer may still move the selection.
  await expect(
    palette.locator(
      '.palette-list[data-results-for="settlements to confirm"] [cmdk-item][aria-selected="true"]',
    ),
  ).toHaveText(`Settlements to confirm · ${waiting} waiting`);
  await page.keyboard.press('Enter');
  await expect(palette).toBeHidden();
  await expect(page).toHaveURL(/\/settlementquery\?status=to_be_confirmed$/);
  const grid = page.getByRole('grid');
  await expect(grid.getByRole('row')).toHaveCount(waiting + 1);
  // Each to be confirmed: the one whose confirmation waits for a second person says so.
  for (const row of await grid.getByRole('row').all()) {
    if ((await row.getAttribute('aria-rowindex')) !== '1')
      await expect(row).toContainText(/To be confirmed|2nd approval/);
  }
});
