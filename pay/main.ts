/**
 * The bank channel's pay page: plain DOM, no framework, a few kilobytes. The server writes the language
 * its Accept-Language asks for and both languages' `pay.*` strings into the HTML (`#pay-data`); the order
 * itself comes from `/pay/<orderNo>/info`, polled every few seconds so a paid order turns to the paid page.
 * Only types come from the contract: the server validates, the page shows what it answers.
 */
import type { PayInfo, PayPageStatus, PayUtrAnswer } from '../contract/pay.ts';
import './pay.css';

type Lang = 'en' | 'zh_CN';
interface PageData {
  lang: Lang;
  strings: Record<Lang, Record<string, unknown>>;
}
interface Envelope<T> {
  errno: number;
  errmsg: string;
  data: T;
}

const pollMs = 5_000;
const langKey = 'pay.lang';

const data: PageData = JSON.parse(document.getElementById('pay-data')?.textContent || 'null') ?? {
  lang: 'en',
  strings: { en: {}, zh_CN: {} },
};
let lang: Lang = remembered() ?? data.lang;
const orderNo = decodeURIComponent(location.pathname.split('/')[2] ?? '');
const root = document.getElementById('pay')!;

let info: PayInfo | null = null;
let missing = false;
/**
 * Refused by a risk rule (errno 1070 riskBlocked, 1071 velocityExceeded; contract/errno.ts, by number:
 * the page imports types only): no account to pay into is shown.
 */
let refused = false;
const refusals = [1070, 1071];
/**
 * Server clock minus this device's, from the first answer: the countdown runs on the server's time. Once:
 * a later answer's network delay would make the countdown jump back and forth.
 */
let skewMs: number | null = null;
/** What the view shows now: rebuilt only when it changes, so a poll never clears what the payer types. */
let shown = '';
let countdown: HTMLElement | null = null;

function remembered(): Lang | null {
  try {
    const v = localStorage.getItem(langKey);
    return v === 'en' || v === 'zh_CN' ? v : null;
  } catch {
    return null;
  }
}

/** A `pay.*` string (key without the prefix), `{{name}}` filled in. */
function t(key: string, params: Record<string, string> = {}): string {
  let v: unknown = data.strings[lang];
  for (const part of key.split('.')) v = (v as Record<string, unknown> | undefined)?.[part];
  return (typeof v === 'string' ? v : key).replace(/\{\{(\w+)\}\}/g, (_, name: string) => params[name] ?? '');
}

type Child = Node | string | null | false | undefined;

/** An element: `on…` attributes are listeners, `false` leaves an attribute out. */
function h(
  tag: string,
  attrs: Record<string, string | boolean | EventListener> = {},
  ...children: Child[]
): HTMLElement {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== false) el.setAttribute(name, value);
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

/** `1234567.50 INR` → `₹12,34,567.50`: rupees grouped the Indian way, other currencies by thousands. */
function money(amount: string, currency: string): string {
  const [whole = '0', fraction = '00'] = amount.split('.');
  if (currency === 'INR') return `₹${whole.replace(/(\d)(?=(\d\d)+\d$)/g, '$1,')}.${fraction}`;
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction} ${currency}`;
}

function remainingMs(): number {
  return info?.expiresAt ? Date.parse(info.expiresAt) - (Date.now() + (skewMs ?? 0)) : 0;
}

function mmss(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** The status to show: a pending order whose time ran out here is expired before the server says so. */
function status(): PayPageStatus | null {
  if (!info) return null;
  return info.status === 'pending' && remainingMs() <= 0 ? 'expired' : info.status;
}

async function copy(text: string, button: HTMLElement) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard API (an older browser, a page not on HTTPS): the selection way.
    const area = h('textarea', { class: 'offscreen', readonly: true }) as HTMLTextAreaElement;
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  button.textContent = t('copied');
  setTimeout(() => {
    button.textContent = t('copy');
  }, 1500);
}

function copyButton(text: string, field: string) {
  const button = h(
    'button',
    { type: 'button', class: 'copy', 'aria-label': t('copyOf', { field }) },
    t('copy'),
  );
  button.addEventListener('click', () => void copy(text, button));
  return button;
}

/** One line of the account: numbers and codes in monospace (read out digit by digit), names as text. */
function detail(label: string, value: string, kind: 'code' | 'name', copyable = true) {
  return h(
    'div',
    { class: 'detail' },
    h('dt', {}, label),
    h('dd', {}, h('span', { class: `value ${kind}` }, value), copyable && copyButton(value, label)),
  );
}

function utrForm(order: PayInfo) {
  const input = h('input', {
    id: 'utr',
    name: 'utr',
    autocomplete: 'off',
    autocapitalize: 'characters',
    spellcheck: 'false',
    maxlength: '40',
    'aria-describedby': 'utr-hint utr-error',
  }) as HTMLInputElement;
  const error = h('p', { id: 'utr-error', class: 'error', role: 'alert', hidden: true });
  const submit = h(
    'button',
    { type: 'submit', class: 'button primary' },
    t('utrSubmit'),
  ) as HTMLButtonElement;
  const form = h(
    'form',
    { class: 'card utr', novalidate: true },
    h('h2', {}, t('utrTitle')),
    order.payerUtr &&
      h(
        'div',
        { class: 'notice ok', role: 'status' },
        h('p', {}, t('utrReceived', { utr: order.payerUtr })),
        h('p', { class: 'small' }, t('utrChange')),
      ),
    h('label', { for: 'utr' }, t('utrLabel')),
    h('p', { id: 'utr-hint', class: 'hint' }, t('utrHint')),
    h('div', { class: 'utr-row' }, input, submit),
    error,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    submit.textContent = t('utrSending');
    error.hidden = true;
    input.removeAttribute('aria-invalid');
    try {
      const answer = await call<PayUtrAnswer>('POST', 'utr', { utr: input.value });
      if (answer.errno === 0) {
        order.payerUtr = answer.data.payerUtr;
        input.value = '';
        render(true);
        return;
      }
      error.textContent = answer.errmsg;
    } catch {
      error.textContent = t('network');
    }
    error.hidden = false;
    input.setAttribute('aria-invalid', 'true');
    submit.disabled = false;
    submit.textContent = t('utrSubmit');
    input.focus();
  });
  return form;
}

function pendingView(order: PayInfo) {
  countdown = h('span', { class: 'countdown', role: 'timer' }, mmss(remainingMs()));
  const account = order.account;
  return [
    h(
      'section',
      { class: 'card amount' },
      h('p', { class: 'label' }, t('payExactly')),
      h(
        'div',
        { class: 'amount-row' },
        h('span', { class: 'big', 'data-testid': 'amount' }, money(order.amount ?? '', order.currency ?? '')),
        copyButton(order.amount ?? '', t('payExactly')),
      ),
      h('p', { class: 'time' }, t('timeLeft'), ' ', countdown),
    ),
    h(
      'section',
      { class: 'card where' },
      order.qrSvg &&
        h(
          'div',
          { class: 'qr' },
          h('img', {
            src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(order.qrSvg)}`,
            alt: t('qrAlt'),
            width: '220',
            height: '220',
          }),
          h('p', {}, t('scanQr')),
          order.upiUri && h('a', { class: 'button', href: order.upiUri }, t('openUpi')),
        ),
      account &&
        h(
          'div',
          { class: 'account' },
          h('h2', {}, t('orTransfer')),
          h(
            'dl',
            {},
            account.vpa && detail(t('vpa'), account.vpa, 'code'),
            detail(t('accountNumber'), account.accountNumber, 'code'),
            detail(t('ifsc'), account.ifsc, 'code'),
            detail(t('accountName'), account.accountName, 'name'),
            detail(t('bankName'), account.bankName, 'name', false),
          ),
        ),
    ),
    utrForm(order),
  ];
}

function message(kind: string, title: string, text: string, ...more: Child[]) {
  return h('section', { class: `card message ${kind}` }, h('h1', {}, title), h('p', {}, text), ...more);
}

function view(): Child[] {
  if (missing) return [message('bad', t('notFoundTitle'), t('notFoundText'))];
  if (refused) return [message('bad', t('refusedTitle'), t('refusedText'))];
  const order = info;
  switch (status()) {
    case null:
      return [h('p', { class: 'muted loading' }, t('loading'))];
    case 'paid':
      return [
        message(
          'ok',
          t('paidTitle'),
          t('paidText'),
          order!.returnUrl && h('a', { class: 'button primary', href: order!.returnUrl }, t('returnLink')),
        ),
      ];
    case 'expired':
      return [message('warn', t('expiredTitle'), t('expiredText')), utrForm(order!)];
    case 'failed':
      return [message('warn', t('failedTitle'), t('failedText')), utrForm(order!)];
    case 'pending':
      return pendingView(order!);
  }
}

function header() {
  const choice = (to: Lang, label: string) =>
    h(
      'button',
      {
        type: 'button',
        lang: to === 'zh_CN' ? 'zh-CN' : 'en',
        'aria-pressed': String(lang === to),
        onclick: () => {
          lang = to;
          try {
            localStorage.setItem(langKey, to);
          } catch {
            // Private mode: the choice lasts this page only.
          }
          render(true);
        },
      },
      label,
    );
  return h(
    'header',
    { class: 'top' },
    h('span', { class: 'brand' }, t('title')),
    h('nav', { class: 'langs', 'aria-label': t('language') }, choice('en', 'EN'), choice('zh_CN', '中文')),
  );
}

function render(force = false) {
  const key = `${lang}|${missing}|${refused}|${status()}|${info?.payerUtr}|${info?.supportText}`;
  if (!force && key === shown) {
    if (countdown) countdown.textContent = mmss(remainingMs());
    return;
  }
  shown = key;
  countdown = null;
  document.documentElement.lang = lang === 'zh_CN' ? 'zh-CN' : 'en';
  document.title = t('title');
  const parts: Child[] = [
    header(),
    ...view(),
    // The platform's own words (plain text: a text node, never markup).
    info?.supportText && h('p', { class: 'card support', 'data-testid': 'support' }, info.supportText),
    info && h('footer', { class: 'foot' }, `${t('orderNo')}: `, h('span', { class: 'mono' }, info.orderNo)),
  ];
  root.replaceChildren(...parts.filter((c): c is Node | string => !!c));
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Envelope<T>> {
  const res = await fetch(`/pay/${encodeURIComponent(orderNo)}/${path}`, {
    method,
    cache: 'no-store',
    headers: {
      'Accept-Language': lang === 'zh_CN' ? 'zh-CN' : 'en',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Envelope<T>;
}

async function load() {
  try {
    const answer = await call<PayInfo>('GET', 'info');
    if (answer.errno === 0) {
      info = answer.data;
      skewMs ??= Date.parse(info.now) - Date.now();
    } else if (answer.errno === 404) {
      missing = true;
    } else if (refusals.includes(answer.errno)) {
      refused = true;
      info = null;
    }
  } catch {
    // Offline for a moment: the next poll tries again; the page keeps what it shows.
  }
  render();
}

function poll() {
  // Once paid or unknown nothing more can happen here; a hidden tab waits for the payer to come back.
  if (missing || refused || info?.status === 'paid') return;
  if (!document.hidden) void load();
  setTimeout(poll, pollMs);
}

render();
void load().then(() => setTimeout(poll, pollMs));
setInterval(() => render(), 1000);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) void load();
});
