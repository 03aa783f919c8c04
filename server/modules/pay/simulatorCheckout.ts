/**
 * The simulator channel's checkout at its pay-ins' `payUrl`, `/sim/pay/<orderNo>`: what a payer meets at
 * a sandbox gateway's hosted page. It shows the order and lets its payer pay or fail it, as the payer's
 * bank would; the simulator then tells the pay-in service as its channel callback does (no money moves:
 * the simulator is a test channel, off unless SIMULATOR or the demo turns it on). No sign-in, as a
 * channel's checkout has none: limited per address, written to the operation log with the address.
 * Plain HTML forms (no script), answered with a redirect back to the page (post, redirect, get).
 */
import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { errno } from '../../../contract/errno.ts';
import { formatMinor } from '../../../contract/money.ts';
import { simulatorOn } from '../../config.ts';
import { inTransaction } from '../../db/index.ts';
import { payinOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { readBodyText } from '../../http/body.ts';
import { clientIp } from '../../http/clientIp.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, langFrom, t } from '../../http/i18n.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { rateLimiter } from '../../lib/rateLimit.ts';
import { payinNumbered } from '../orders/keys.ts';
import { channelOf } from '../payin/access.ts';
import { settleSimulatorPayin } from '../payin/simulator.ts';
import { logPayerWrite, maskedUtr, pageStatus } from './routes.ts';

/** Page loads per address per minute, and payments per address per 10 minutes. */
const readsPerMinute = 120;
const paymentsPerWindow = 30;
const orderNoShape = /^[A-Za-z0-9]{1,64}$/;

export function mountSimulatorCheckout(app: Hono<{ Variables: { requestId: string } }>, deps: Deps) {
  const now = () => deps.clock.now().getTime();
  const reads = rateLimiter({ limit: readsPerMinute, windowMs: 60_000, now });
  const payments = rateLimiter({ limit: paymentsPerWindow, windowMs: 10 * 60_000, now });
  const db = deps.database.db;
  const on = () => simulatorOn(deps.config, deps.database.engine);
  const meta = (c: Context) => ({
    ip: clientIp(c, deps.config.trustProxy),
    lang: langFrom(c.req.header('accept-language')),
  });

  /** The simulator's own pay-in of that number, or nothing (another channel's order is no business here). */
  const load = async (orderNo: string) => {
    if (!orderNoShape.test(orderNo)) return undefined;
    const [order] = await db.select().from(payinOrders).where(payinNumbered(orderNo));
    if (!order?.channelOrderId) return undefined;
    const channel = await channelOf(db, order.channelId);
    return channel?.adapter === 'simulator' ? order : undefined;
  };

  app.get('/sim/pay/:orderNo', async (c) => {
    const { ip, lang } = meta(c);
    c.header('Cache-Control', 'no-store');
    if (!reads.hit(ip)) return c.html(page(lang, t(lang, 'pay.errors.tooMany')), 429);
    const order = on() ? await load(c.req.param('orderNo')) : undefined;
    if (!order) return c.html(page(lang, t(lang, 'pay.errors.notFound')), 404);
    const status = pageStatus(order.status, order.expiresAt, deps.clock.now());
    const s = (key: string) => t(lang, `pay.simulator.${key}`);
    const outcome =
      status === 'pending'
        ? html`<form method="post">
            <button name="result" value="success" class="pay" autofocus>${s('pay')}</button>
            <button name="result" value="fail" class="fail">${s('fail')}</button>
          </form>`
        : status === 'paid'
          ? html`<p class="paid" role="status">${t(lang, 'pay.paidTitle')}${order.utr ? ` · UTR ${maskedUtr(order.utr)}` : ''}</p>
              ${order.returnUrl ? html`<p><a href="${order.returnUrl}">${t(lang, 'pay.returnLink')}</a></p>` : ''}`
          : html`<p class="closed" role="status">${t(lang, status === 'expired' ? 'pay.expiredTitle' : 'pay.failedTitle')}</p>`;
    return c.html(
      page(
        lang,
        html`<dl>
            <dt>${t(lang, 'pay.orderNo')}</dt><dd><code>${order.orderNo}</code></dd>
            <dt>${s('amount')}</dt><dd class="amount">${amountText(lang, order.amount, order.currency)}</dd>
          </dl>
          ${outcome}`,
      ),
    );
  });

  app.post('/sim/pay/:orderNo', async (c) => {
    const { ip, lang } = meta(c);
    if (!payments.hit(ip)) return c.html(page(lang, t(lang, 'pay.errors.tooMany')), 429);
    const orderNo = c.req.param('orderNo');
    const result = new URLSearchParams(await readBodyText(c.req.raw, 1024).catch(() => '')).get('result');
    if (result !== 'success' && result !== 'fail')
      return c.html(page(lang, t(lang, 'pay.simulator.badResult')), 422);
    if (!on() || !orderNoShape.test(orderNo)) return c.html(page(lang, t(lang, 'pay.errors.notFound')), 404);
    try {
      await inTransaction(db, async (tx) => {
        const [order] = await tx.select().from(payinOrders).where(payinNumbered(orderNo)).for('update');
        const channel = order && (await channelOf(tx, order.channelId));
        if (!order || !channel) throw new AppError(errno.notFound);
        // Another channel's order, or one the simulator never booked: 404 from the settlement itself.
        await settleSimulatorPayin(deps, tx, order, channel, { result, notify: true });
        const by = { at: deps.clock.now(), ip, requestId: c.get('requestId') };
        await logPayerWrite(tx, by, 'simulator.checkout', order.orderNo, { result });
      });
      wakeWebhookWorkers();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // Settled already (a second click, another tab): the page shows how it ended.
      if (err.errno !== errno.conflict) {
        const key = err.errno === errno.notFound ? 'pay.errors.notFound' : `errno.${err.errno}`;
        return c.html(page(lang, t(lang, key)), err.errno === errno.notFound ? 404 : 409);
      }
    }
    return c.redirect(`/sim/pay/${encodeURIComponent(orderNo)}`, 303);
  });
}

/** As a payer reads it: ₹1,23,456.50 (Indian grouping for the rupee), the currency's own sign. */
function amountText(lang: Lang, minor: bigint | number, currency: string): string {
  const locale =
    currency === 'INR' ? (lang === 'zh_CN' ? 'zh-CN' : 'en-IN') : lang === 'zh_CN' ? 'zh-CN' : 'en';
  return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(Number(formatMinor(minor)));
}

/** The page around its content, in the payer's language. */
function page(lang: Lang, body: unknown) {
  const s = (key: string) => t(lang, `pay.simulator.${key}`);
  return html`<!doctype html>
<html lang="${lang === 'zh_CN' ? 'zh-CN' : 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${s('title')}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1f2430}
main{max-width:420px;margin:40px auto;padding:24px;box-sizing:border-box;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002}
h1{font-size:20px;margin:0 0 4px}.note{color:#5b6170;font-size:14px;margin:0 0 16px}
dl{display:grid;grid-template-columns:auto 1fr;gap:6px 16px;margin:0 0 20px}dt{color:#5b6170}dd{margin:0;overflow-wrap:anywhere}
.amount{font-size:22px;font-weight:600}form{display:flex;gap:12px;flex-wrap:wrap}
button{flex:1;font:inherit;padding:10px 16px;border-radius:6px;border:1px solid #c5cad3;background:#fff;cursor:pointer}
@media (max-width:460px){main{margin:16px 12px}}
button.pay{background:#1f6feb;border-color:#1f6feb;color:#fff}.paid{color:#1a7f37;font-weight:600}.closed{color:#a40e26;font-weight:600}
</style>
</head>
<body><main>
<h1>${s('title')}</h1>
<p class="note">${s('note')}</p>
${body}
</main></body>
</html>`;
}
