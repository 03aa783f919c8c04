/**
 * The bank channel's public pay page (OPERATIONS.md section 2) at a pay-in's `payUrl`, `/pay/<orderNo>`:
 * the page (its own small bundle, built by vite.pay.config.ts into dist/pay beside the console), what it
 * shows (`/info`) and where the payer says which UTR they paid with (`/utr`). No sign-in: the order number
 * is the key, so both calls are limited per address, answer only what a payer needs, and the UTR is
 * recorded on the order, never trusted: a statement line or an operator pays the order.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import QRCode from 'qrcode';
import type { RiskRule } from '../../../contract/endpoints/risk.ts';
import { type Errno, errno } from '../../../contract/errno.ts';
import { type PayinStatus, payin } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import {
  type PayInfo,
  type PayPageStatus,
  type PayUtrAnswer,
  payUtrInput,
  payUtrMaxBytes,
} from '../../../contract/pay.ts';
import en from '../../../locales/en.json' with { type: 'json' };
import zh from '../../../locales/zh_CN.json' with { type: 'json' };
import { type Database, type Db, inTransaction } from '../../db/index.ts';
import { merchants, operationLog, payinOrders, receivingAccounts } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { envelopeAnswer, jsonAnswer } from '../../http/answer.ts';
import { readBodyText } from '../../http/body.ts';
import { clientIp } from '../../http/clientIp.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, langFrom, t } from '../../http/i18n.ts';
import { fieldErrors } from '../../http/validation.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { isoOf } from '../../lib/isoTime.ts';
import { errorForLog } from '../../lib/logger.ts';
import { readParameter } from '../../lib/parameters.ts';
import { rateLimiter } from '../../lib/rateLimit.ts';
import { payinNumbered } from '../orders/keys.ts';
import { orderUsingUtr } from '../payin/utr.ts';
import { blockedBy, ipPayerKey, RiskRefusal, recordRefusal, velocityBroken } from '../risk/rules.ts';
import { matchPayerUtr } from '../statement/service.ts';

/** Page loads and polls per address per minute: a payer's tab polls 12 times a minute, a shared NAT a few. */
export const payReadsPerMinute = 120;
/** UTR submissions per address per 10 minutes: enough to correct a typo, too few to probe for UTRs. */
export const payUtrsPerWindow = 10;

/** Orders numbers are letters and digits (`PI…`); anything else is no order. */
const orderNoShape = /^[A-Za-z0-9]{1,64}$/;

/** The statuses a payer may still tell a UTR for: the ones a proved payment can overturn (`utrCheck`). */
const takesUtr = payin.actions.utrCheck.from;

const payStrings = { en: en.pay, zh_CN: zh.pay };

type Order = NonNullable<Awaited<ReturnType<typeof loadOrder>>>;

function loadOrder(db: Deps['database']['db'], orderNo: string) {
  return db
    .select({
      id: payinOrders.id,
      createdAt: payinOrders.createdAt,
      merchantId: payinOrders.merchantId,
      payerKey: payinOrders.payerKey,
      velocityPayinsPerDay: merchants.velocityPayinsPerDay,
      velocityAmountPerDay: merchants.velocityAmountPerDay,
      orderNo: payinOrders.orderNo,
      status: payinOrders.status,
      amount: payinOrders.amount,
      currency: payinOrders.currency,
      expiresAt: payinOrders.expiresAt,
      returnUrl: payinOrders.returnUrl,
      payerUtr: payinOrders.payerUtr,
      bankName: receivingAccounts.bankName,
      accountName: receivingAccounts.accountName,
      accountNumber: receivingAccounts.accountNumber,
      ifsc: receivingAccounts.ifsc,
      vpa: receivingAccounts.vpa,
    })
    .from(payinOrders)
    .innerJoin(receivingAccounts, eq(receivingAccounts.id, payinOrders.receivingAccountId))
    .innerJoin(merchants, eq(merchants.id, payinOrders.merchantId))
    .where(payinNumbered(orderNo))
    .then((rows) => rows[0]);
}

/** What the page shows for each pay-in state: total, so a new state must be given its outcome here. */
const pageStatusOf = {
  creating: 'pending',
  pending: 'pending',
  paid: 'paid',
  failed: 'failed',
  unpaid: 'expired',
  creation_failed: 'failed',
} as const satisfies Record<PayinStatus, PayPageStatus>;

/** What the page shows: a pending order past its expiry is expired already, before the sweeper gets to it. */
export function pageStatus(status: Order['status'], expiresAt: Date, now: Date): PayPageStatus {
  const shown = pageStatusOf[status];
  return shown === 'pending' && expiresAt.getTime() <= now.getTime() ? 'expired' : shown;
}

/**
 * The UPI intent a payer's app opens: to the VPA, or without one to the account itself through NPCI's
 * `<account number>@<IFSC>.ifsc.npci` address. Only for rupees: UPI carries nothing else.
 */
export function upiUri(
  order: Pick<Order, 'orderNo' | 'amount' | 'currency' | 'accountName' | 'accountNumber' | 'ifsc' | 'vpa'>,
) {
  if (order.currency !== 'INR') return null;
  const pa = order.vpa ?? `${order.accountNumber}@${order.ifsc}.ifsc.npci`;
  const q = (v: string) => encodeURIComponent(v);
  return `upi://pay?pa=${q(pa)}&pn=${q(order.accountName)}&am=${q(formatMinor(order.amount))}&cu=INR&tn=${q(order.orderNo)}`;
}

/** QR codes by UPI URI: a payer's page asks every few seconds for the same one. */
const qrCache = new Map<string, string>();
async function qrSvg(uri: string): Promise<string> {
  const kept = qrCache.get(uri);
  if (kept) return kept;
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  if (qrCache.size >= 1000) qrCache.delete(qrCache.keys().next().value!);
  qrCache.set(uri, svg);
  return svg;
}

/**
 * The risk rule the payer at `ip` breaks on an open order, if any (docs/MONEY-BACK.md section 4): the
 * address on the blocklist, or the merchant's velocity limits for the order's payer. An order whose
 * creation named no payer is keyed by the address of its first view, so that the payer's orders of the
 * day are counted up to this one, whoever polls. Written once per order and rule.
 */
async function pageRule(
  database: Database,
  order: Order,
  ip: string,
  now: Date,
): Promise<RiskRefusal | null> {
  const db: Db = database.db;
  let rule: RiskRule | null = await blockedBy(db, now, [{ kind: 'payer_ip', value: ip }], database);
  if (!rule) {
    let key = order.payerKey;
    if (key === null) {
      // By its primary key (id and month); a concurrent first view's address stays if it came first.
      const [kept] = await db
        .update(payinOrders)
        .set({ payerKey: sql`coalesce(${payinOrders.payerKey}, ${ipPayerKey(ip)})` })
        .where(and(eq(payinOrders.id, order.id), eq(payinOrders.createdAt, order.createdAt)))
        .returning({ payerKey: payinOrders.payerKey });
      key = kept?.payerKey ?? ipPayerKey(ip);
    }
    const merchant = {
      id: order.merchantId,
      velocityPayinsPerDay: order.velocityPayinsPerDay,
      velocityAmountPerDay: order.velocityAmountPerDay,
    };
    rule = await velocityBroken(db, merchant, key, order.createdAt, { count: 0, amount: 0 }, order.id);
  }
  if (!rule) return null;
  await recordRefusal(db, { rule, merchantId: order.merchantId, at: now, orderNo: order.orderNo });
  return new RiskRefusal(rule);
}

/** Enough of a submitted UTR for the payer to recognise it, too little for anyone else to use it. */
export const maskedUtr = (utr: string) => `••••${utr.slice(-4)}`;

async function infoOf(order: Order, now: Date, supportText: string): Promise<PayInfo> {
  const status = pageStatus(order.status, order.expiresAt, now);
  // What paying needs, only while paying makes sense: of a closed order, its outcome alone.
  const open = status === 'pending';
  const uri = open ? upiUri(order) : null;
  return {
    orderNo: order.orderNo,
    status,
    amount: open ? formatMinor(order.amount) : null,
    currency: open ? order.currency : null,
    expiresAt: open ? isoOf(order.expiresAt) : null,
    now: isoOf(now),
    account: open
      ? {
          bankName: order.bankName,
          accountName: order.accountName,
          accountNumber: order.accountNumber,
          ifsc: order.ifsc,
          vpa: order.vpa,
        }
      : null,
    upiUri: uri,
    qrSvg: uri ? await qrSvg(uri) : null,
    payerUtr: open && order.payerUtr ? maskedUtr(order.payerUtr) : null,
    returnUrl: status === 'paid' ? order.returnUrl : null,
    supportText: supportText.trim() || null,
  };
}

/**
 * A payer's write (no sign-in: the pay page, the simulator's checkout): who, by address, did what to
 * which pay-in, in the operation log beside the operators'.
 */
export async function logPayerWrite(
  tx: Db,
  by: { at: Date; ip: string; requestId: string },
  action: string,
  orderNo: string,
  detail: Record<string, unknown>,
): Promise<void> {
  await tx.insert(operationLog).values({
    ...by,
    userId: null,
    username: '',
    userKind: null,
    merchantId: null,
    action,
    target: `payin:${orderNo}`,
    outcome: 'ok',
    errno: 0,
    detail,
  });
}

/** The page's own words for its refusals; the rest use the errno catalogue. */
const refusalKey: Partial<Record<Errno, string>> = {
  [errno.notFound]: 'pay.errors.notFound',
  [errno.utrUsed]: 'pay.errors.utrUsed',
  [errno.tooManyRequests]: 'pay.errors.tooMany',
  [errno.riskBlocked]: 'pay.errors.refused',
  [errno.velocityExceeded]: 'pay.errors.refused',
};

/** A refusal as every API answers one (its status beside its errno; JSON answers are never stored). */
function refuse(c: Context, lang: Lang, code: Errno, data: unknown = null, errmsg?: string) {
  const key = refusalKey[code];
  return envelopeAnswer(c, lang, code, data, errmsg ?? (key && t(lang, key)));
}

const ok = (c: Context, data: unknown) => jsonAnswer(c, { errno: errno.ok, errmsg: '', data });

/** The page's HTML with its language and both languages' `pay.*` strings written in. */
function pageHtml(template: string, lang: Lang): string {
  const data = JSON.stringify({ lang, strings: payStrings }).replace(/</g, '\\u003c');
  return template
    .replace('<html lang="en">', `<html lang="${lang === 'zh_CN' ? 'zh-CN' : 'en'}">`)
    .replace(
      '<script type="application/json" id="pay-data"></script>',
      `<script type="application/json" id="pay-data">${data}</script>`,
    );
}

export function mountPay(app: Hono<{ Variables: { requestId: string } }>, deps: Deps) {
  const now = () => deps.clock.now().getTime();
  const reads = rateLimiter({ limit: payReadsPerMinute, windowMs: 60_000, now });
  const utrs = rateLimiter({ limit: payUtrsPerWindow, windowMs: 10 * 60_000, now });
  // Beside the console's folder: dist/console and dist/pay, or wherever CONSOLE_DIR puts the console.
  const dir = resolve(deps.config.consoleDir, '..', 'pay');
  const db = deps.database.db;
  const meta = (c: Context) => ({
    ip: clientIp(c, deps.config.trustProxy),
    lang: langFrom(c.req.header('accept-language')),
  });

  app.use('/pay/assets/*', async (c, next) => {
    await next();
    if (c.res.status === 200) c.header('Cache-Control', 'public, max-age=31536000, immutable');
  });
  // Not built (tests of the API alone): the assets answer 404 below, without a warning per request.
  if (existsSync(dir))
    app.get('/pay/assets/*', serveStatic({ root: dir, rewriteRequestPath: (p) => p.slice('/pay'.length) }));
  app.get('/pay/assets/*', (c) => c.text('Not found', 404));

  app.get('/pay/:orderNo/info', async (c) => {
    const { ip, lang } = meta(c);
    if (!reads.hit(ip)) return refuse(c, lang, errno.tooManyRequests);
    const orderNo = c.req.param('orderNo');
    const order = orderNoShape.test(orderNo) ? await loadOrder(db, orderNo) : undefined;
    if (!order) return refuse(c, lang, errno.notFound);
    const now = deps.clock.now();
    // While there is an account to show, the rules are met on every poll: an entry added refuses at once.
    if (pageStatus(order.status, order.expiresAt, now) === 'pending') {
      const refusal = await pageRule(deps.database, order, ip, now);
      if (refusal) return refuse(c, lang, refusal.errno, refusal.data);
    }
    // Read per poll: a change of the parameter shows on the next one, in every server process.
    return ok(c, await infoOf(order, now, await readParameter(db, 'pay_page_support_text')));
  });

  app.post('/pay/:orderNo/utr', async (c) => {
    const { ip, lang } = meta(c);
    if (!utrs.hit(ip)) return refuse(c, lang, errno.tooManyRequests);
    if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json'))
      return refuse(c, lang, errno.unsupportedMediaType);
    let raw: unknown;
    try {
      const text = await readBodyText(c.req.raw, payUtrMaxBytes);
      raw = JSON.parse(text);
    } catch (err) {
      return refuse(c, lang, err instanceof AppError ? err.errno : errno.badRequest);
    }
    const parsed = payUtrInput.safeParse(raw);
    if (!parsed.success) {
      const fields = fieldErrors(parsed.error.issues, lang);
      return refuse(c, lang, errno.invalid, { fields }, fields[0]?.message);
    }
    const utr = parsed.data.utr;
    const orderNo = c.req.param('orderNo');
    if (!orderNoShape.test(orderNo)) return refuse(c, lang, errno.notFound);

    type Outcome = { payerUtr: string; accountId?: number } | { refused: Errno; key?: string };
    const outcome = await inTransaction(db, async (tx): Promise<Outcome> => {
      const [order] = await tx
        .select({
          id: payinOrders.id,
          status: payinOrders.status,
          payerUtr: payinOrders.payerUtr,
          receivingAccountId: payinOrders.receivingAccountId,
        })
        .from(payinOrders)
        .where(payinNumbered(orderNo))
        .for('update');
      if (!order || order.receivingAccountId === null) return { refused: errno.notFound };
      if (order.status === 'paid') return { refused: errno.conflict, key: 'pay.errors.paid' };
      if (!(takesUtr as readonly string[]).includes(order.status))
        return { refused: errno.conflict, key: 'pay.errors.closed' };
      if (order.payerUtr === utr) return { payerUtr: utr };
      // A UTR that paid an order once never pays another: saying so now saves the payer a wait.
      const used = await orderUsingUtr(tx, utr);
      if (used && used.id !== order.id) return { refused: errno.utrUsed };
      const at = deps.clock.now();
      // Compare-and-set: the order may have turned paid since it was read (the lock makes this belt and braces).
      const updated = await tx
        .update(payinOrders)
        .set({ payerUtr: utr, updatedAt: at })
        .where(and(eq(payinOrders.id, order.id), inArray(payinOrders.status, [...takesUtr])))
        .returning({ id: payinOrders.id });
      if (!updated.length) return { refused: errno.conflict, key: 'pay.errors.closed' };
      await logPayerWrite(tx, { at, ip, requestId: c.get('requestId') }, 'pay.utr', orderNo, {
        changes: { payerUtr: { before: order.payerUtr, after: utr } },
      });
      return { payerUtr: utr, accountId: order.receivingAccountId };
    });
    if ('refused' in outcome)
      return refuse(c, lang, outcome.refused, null, outcome.key && t(lang, outcome.key));
    // A statement already imported may hold the payment: it pays the order now (matching's rules, never
    // the payer's word). The payer's answer does not wait on it failing.
    if (outcome.accountId !== undefined) {
      try {
        if (await matchPayerUtr(deps, outcome.accountId, utr)) wakeWebhookWorkers();
      } catch (err) {
        deps.logger.warn({ err: errorForLog(err), orderNo }, 'matching a payer UTR failed');
      }
    }
    return ok(c, { payerUtr: outcome.payerUtr } satisfies PayUtrAnswer);
  });

  app.get('/pay/:orderNo', async (c) => {
    const { ip, lang } = meta(c);
    if (!reads.hit(ip)) return refuse(c, lang, errno.tooManyRequests);
    const index = join(dir, 'index.html');
    if (!existsSync(index)) return c.text('The pay page is not built yet: run `npm run build`.', 503);
    const orderNo = c.req.param('orderNo');
    const found = orderNoShape.test(orderNo) && (await loadOrder(db, orderNo)) !== undefined;
    // The page asks for the order itself; an unknown one is also a 404 for whoever reads the status.
    c.header('Cache-Control', 'no-store');
    return c.html(pageHtml(await readFile(index, 'utf8'), lang), found ? 200 : 404);
  });
}
