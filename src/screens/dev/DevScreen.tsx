import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Card } from '../../ui/Card.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { MerchantPage } from '../MerchantPage.tsx';
import { SignatureHelper } from './SignatureHelper.tsx';
import './dev.css';

/**
 * Development settings: what a merchant's developer needs to call the gateway. The merchant code (the
 * `X-Merchant-Id` header), the secrets masked with their resets, the callback URL, the payout IP
 * whitelist, and a signature helper.
 */
export default function DevScreen() {
  const t = useT();
  return (
    <MerchantPage title={t('commands.dev.settings.title')}>
      {(m) => (
        <>
          <Card id="dev-merchant" title={t('screens.dev.merchant')}>
            <dl className="facts">
              <div>
                <dt>{t('screens.dev.merchantCode')}</dt>
                <dd className="secret-row">
                  <code data-testid="merchant-code">{m.code}</code>
                  <CopyButton text={m.code} label={t('screens.dev.merchantCode')} />
                </dd>
              </div>
              <div>
                <dt>{t('screens.dev.merchantId')}</dt>
                <dd>{m.id}</dd>
              </div>
              <div>
                <dt>{t('screens.dev.name')}</dt>
                <dd>{m.name}</dd>
              </div>
              <div>
                <dt>{t('screens.dev.currency')}</dt>
                <dd>{m.currency}</dd>
              </div>
              <div>
                <dt>{t('screens.dev.status')}</dt>
                <dd>
                  <Badge tone={m.status === 'active' ? 'ok' : 'bad'}>
                    {t(`screens.dev.statuses.${m.status}`)}
                  </Badge>
                </dd>
              </div>
            </dl>
            <p className="field-hint">{t('screens.dev.merchantCodeHint')}</p>
          </Card>

          <Card id="dev-secrets" title={t('screens.dev.secrets')}>
            <dl className="facts stacked">
              <div>
                <dt>{t('screens.dev.apiSecret')}</dt>
                <dd>
                  <code className="secret" data-testid="api-secret-masked">
                    {m.apiSecretMasked}
                  </code>
                </dd>
              </div>
              <div>
                <dt>{t('screens.dev.webhookSecret')}</dt>
                <dd>
                  <code className="secret" data-testid="webhook-secret-masked">
                    {m.webhookSecretMasked}
                  </code>
                </dd>
              </div>
            </dl>
            <p className="field-hint">{t('screens.dev.secretsHint')}</p>
            <div className="card-actions">
              <CommandButton id="dev.resetApiSecret" />
              <CommandButton id="dev.resetWebhookSecret" />
            </div>
          </Card>

          <Card id="dev-callback" title={t('screens.dev.callbackUrl')}>
            {m.callbackUrl ? (
              <p className="secret-row">
                <code data-testid="callback-url">{m.callbackUrl}</code>
              </p>
            ) : (
              <p className="muted">{t('screens.dev.callbackNone')}</p>
            )}
            <p className="field-hint">{t('screens.dev.callbackHint')}</p>
            <div className="card-actions">
              <CommandButton id="dev.callbackUpdate" />
            </div>
          </Card>

          <Card id="dev-ips" title={t('screens.dev.ips')}>
            {m.payoutIpWhitelist.length ? (
              <ul className="ip-list" data-testid="ip-list">
                {m.payoutIpWhitelist.map((ip) => (
                  <li key={ip}>
                    <code>{ip}</code>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="notice">{t('screens.dev.ipsNone')}</p>
            )}
            <p className="field-hint">{t('screens.dev.ipsHint')}</p>
            <div className="card-actions">
              <CommandButton id="dev.ipsUpdate" />
            </div>
          </Card>

          <SignatureHelper merchantCode={m.code} />
        </>
      )}
    </MerchantPage>
  );
}
