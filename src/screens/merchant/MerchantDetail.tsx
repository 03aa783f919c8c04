import { useQuery } from '@tanstack/react-query';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Can } from '../../ui/Can.tsx';
import { DetailFields } from '../../ui/DetailDrawer.tsx';

type Merchant = Contexts['merchant'];

function Balances({ merchantId }: { merchantId: number }) {
  const t = useT();
  const wallet = useQuery({
    queryKey: ['merchant-detail', 'wallet', merchantId],
    queryFn: () => api(endpoints.merchantWallet.info, { merchantId }),
  });
  if (!wallet.data) return <p className="muted">{t('app.loading')}</p>;
  const w = wallet.data;
  const rows: [string, string][] = [
    ['screens.merchant.balance.collectionAvailable', w.collection.available],
    ['screens.merchant.balance.collectionPending', w.collection.pending],
    ['screens.merchant.balance.payoutAvailable', w.payout.available],
    ['screens.merchant.balance.frozen', w.frozen],
    ['screens.merchant.balance.reserve', w.reserve],
    ['screens.merchant.balance.owed', w.owed],
  ];
  return (
    <dl className="balance-grid">
      {rows.map(([key, value]) => (
        <div key={key}>
          <dt>{t(key)}</dt>
          <dd>
            {thousands(value)} <span className="muted">{w.currency}</span>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The merchant drawer's extra part: balances, channels with weights, callback, whitelist and keys. */
export function MerchantDetail({ merchant }: { merchant: Merchant }) {
  const t = useT();
  return (
    <>
      <Can needs={[endpoints.merchantWallet.info]}>
        <section className="detail-extra">
          <h3>{t('screens.merchant.balances')}</h3>
          <Balances merchantId={merchant.id} />
        </section>
      </Can>
      <section className="detail-extra">
        <h3>{t('screens.merchant.channels')}</h3>
        {merchant.channels.length === 0 ? (
          <p className="muted">{t('screens.merchant.noChannels')}</p>
        ) : (
          <table className="mini-table">
            <thead>
              <tr>
                <th>{t('screens.channel.code')}</th>
                <th>{t('screens.channel.name')}</th>
                <th>{t('screens.merchant.weight')}</th>
                <th>{t('screens.merchant.route')}</th>
              </tr>
            </thead>
            <tbody>
              {merchant.channels.map((c) => (
                <tr key={c.channelId}>
                  <td>
                    <code>{c.code}</code>
                  </td>
                  <td>{c.name}</td>
                  <td>{c.weight}</td>
                  <td>
                    <Badge tone={c.enabled ? 'ok' : 'muted'}>
                      {t(c.enabled ? 'screens.merchant.routeOn' : 'screens.merchant.routeOff')}
                    </Badge>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="detail-extra">
        <h3>{t('screens.merchant.connection')}</h3>
        <DetailFields
          items={[
            {
              label: t('screens.merchant.whitelist'),
              value: merchant.payoutIpWhitelist.length ? (
                merchant.payoutIpWhitelist.map((ip) => (
                  <code key={ip} className="chip">
                    {ip}
                  </code>
                ))
              ) : (
                <span className="muted">{t('screens.merchant.whitelistEmpty')}</span>
              ),
            },
            { label: t('screens.merchant.apiSecret'), value: <code>{merchant.apiSecretMasked}</code> },
            {
              label: t('screens.merchant.webhookSecret'),
              value: <code>{merchant.webhookSecretMasked}</code>,
            },
          ]}
        />
      </section>
    </>
  );
}
