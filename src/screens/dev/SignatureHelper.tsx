import { type ReactNode, useId, useMemo, useState } from 'react';
import { useT } from '../../lib/useT.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { Field } from '../../ui/form.tsx';
import { curlCommand, newNonce, type SampleRequest, sampleProblems, signSample } from './signature.ts';

/** Sample requests of GATEWAY.md to start from. */
const samples: Record<string, Omit<SampleRequest, 'timestamp' | 'nonce'>> = {
  payinCreate: {
    method: 'POST',
    pathWithQuery: '/gateway/v1/payin',
    body: '{"merchantOrderNo":"ORDER-1001","amount":"500.00","notifyUrl":"https://shop.example/callback"}',
  },
  payinFind: { method: 'GET', pathWithQuery: '/gateway/v1/payin?merchantOrderNo=ORDER-1001', body: '' },
  payoutCreate: {
    method: 'POST',
    pathWithQuery: '/gateway/v1/payout',
    body: '{"merchantOrderNo":"PAYOUT-2001","amount":"1500.00","accountName":"Ravi Kumar","accountNumber":"123456789012","ifsc":"HDFC0001234","notifyUrl":"https://shop.example/callback"}',
  },
  balance: { method: 'GET', pathWithQuery: '/gateway/v1/balance', body: '' },
};

const methods: readonly SampleRequest['method'][] = ['GET', 'POST'];

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Shows the canonical string and signature of a sample gateway request for a secret the user pastes (the
 * server never returns the stored one): what a merchant's developer compares their own code against.
 */
export function SignatureHelper({ merchantCode }: { merchantCode: string }) {
  const t = useT();
  const ids = { method: useId(), body: useId(), sample: useId() };
  const [request, setRequest] = useState<SampleRequest>(() => ({
    ...(samples.payinCreate as Omit<SampleRequest, 'timestamp' | 'nonce'>),
    timestamp: String(nowSeconds()),
    nonce: newNonce(),
  }));
  const [secret, setSecret] = useState('');
  const [sample, setSample] = useState('payinCreate');
  const set = <K extends keyof SampleRequest>(key: K, value: SampleRequest[K]) =>
    setRequest((r) => ({ ...r, [key]: value }));

  const signed = useMemo(() => (secret ? signSample(request, secret) : null), [request, secret]);
  const problems = sampleProblems(request, nowSeconds());
  const headers = signed
    ? [
        `X-Merchant-Id: ${merchantCode}`,
        `X-Timestamp: ${request.timestamp}`,
        `X-Nonce: ${request.nonce}`,
        `X-Signature: ${signed.signature}`,
      ].join('\n')
    : '';

  return (
    <section className="card card-wide signature-helper" aria-labelledby="sign-title">
      <h2 className="card-title" id="sign-title">
        {t('screens.dev.sign.title')}
      </h2>
      <p className="muted">{t('screens.dev.sign.intro')}</p>
      <div className="sign-grid">
        <div className="form">
          <div className="field-row">
            <div className="field">
              <label htmlFor={ids.sample}>{t('screens.dev.sign.sample')}</label>
              <select
                id={ids.sample}
                value={sample}
                onChange={(e) => {
                  const next = samples[e.target.value];
                  setSample(e.target.value);
                  if (next) setRequest((r) => ({ ...r, ...next, nonce: newNonce() }));
                }}
              >
                {Object.keys(samples).map((key) => (
                  <option key={key} value={key}>
                    {t(`screens.dev.sign.samples.${key}`)}
                  </option>
                ))}
              </select>
            </div>
            <div className="field sign-method">
              <label htmlFor={ids.method}>{t('screens.dev.sign.method')}</label>
              <select
                id={ids.method}
                value={request.method}
                onChange={(e) => set('method', e.target.value as SampleRequest['method'])}
              >
                {methods.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <Field
            label={t('screens.dev.sign.path')}
            value={request.pathWithQuery}
            onValue={(v) => set('pathWithQuery', v)}
            className="mono"
            spellCheck={false}
          />
          <div className="field">
            <label htmlFor={ids.body}>{t('screens.dev.sign.body')}</label>
            <textarea
              id={ids.body}
              className="mono"
              rows={4}
              value={request.method === 'GET' ? '' : request.body}
              disabled={request.method === 'GET'}
              onChange={(e) => set('body', e.target.value)}
              spellCheck={false}
            />
            <p className="field-hint">
              {t(request.method === 'GET' ? 'screens.dev.sign.bodyGet' : 'screens.dev.sign.bodyHint')}
            </p>
          </div>
          <div className="field-row">
            <Field
              label={t('screens.dev.sign.timestamp')}
              value={request.timestamp}
              onValue={(v) => set('timestamp', v.trim())}
              className="mono"
              spellCheck={false}
            />
            <button type="button" className="button" onClick={() => set('timestamp', String(nowSeconds()))}>
              {t('screens.dev.sign.now')}
            </button>
          </div>
          <div className="field-row">
            <Field
              label={t('screens.dev.sign.nonce')}
              value={request.nonce}
              onValue={(v) => set('nonce', v.trim())}
              className="mono"
              spellCheck={false}
            />
            <button type="button" className="button" onClick={() => set('nonce', newNonce())}>
              {t('screens.dev.sign.newNonce')}
            </button>
          </div>
          <Field
            label={t('screens.dev.sign.secret')}
            value={secret}
            onValue={setSecret}
            type="password"
            autoComplete="off"
            hint={t('screens.dev.sign.secretHint')}
            className="mono"
            spellCheck={false}
          />
        </div>

        <div className="sign-output" aria-live="polite">
          {problems.length > 0 && (
            <ul className="notice sign-problems">
              {problems.map((p) => (
                <li key={p}>{t(`screens.dev.sign.problems.${p}`)}</li>
              ))}
            </ul>
          )}
          {!signed ? (
            <p className="muted">{t('screens.dev.sign.pasteSecret')}</p>
          ) : (
            <>
              <Output
                label={t('screens.dev.sign.canonical')}
                text={signed.canonical}
                testId="sign-canonical"
                marks
              >
                <p className="field-hint">{t('screens.dev.sign.canonicalHint')}</p>
              </Output>
              <Output
                label={t('screens.dev.sign.signature')}
                text={signed.signature}
                testId="sign-signature"
              />
              <Output label={t('screens.dev.sign.headers')} text={headers} testId="sign-headers" />
              <Output
                label={t('screens.dev.sign.curl')}
                text={curlCommand(window.location.origin, merchantCode, request, signed)}
                testId="sign-curl"
              />
            </>
          )}
        </div>
      </div>
    </section>
  );
}

/** A computed value with its copy button; the canonical string shows its line breaks as ↵. */
function Output({
  label,
  text,
  testId,
  marks = false,
  children,
}: {
  label: string;
  text: string;
  testId: string;
  /** Show each line break as ↵ (the canonical string, where they are part of what is signed). */
  marks?: boolean;
  children?: ReactNode;
}) {
  return (
    <div className="sign-value">
      <div className="sign-value-head">
        <h3>{label}</h3>
        <CopyButton text={text} label={label} />
      </div>
      <pre className="code-block" data-testid={testId}>
        {text.split('\n').map((line, i, all) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of one text, never reordered
          <span key={i}>
            {line}
            {marks && i < all.length - 1 && (
              <span className="sign-newline" aria-hidden="true">
                ↵
              </span>
            )}
            {i < all.length - 1 && '\n'}
          </span>
        ))}
      </pre>
      {children}
    </div>
  );
}
