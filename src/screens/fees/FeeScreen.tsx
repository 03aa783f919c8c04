import { useState } from 'react';
import { amount as amountSchema } from '../../../contract/money.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { Card } from '../../ui/Card.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { DecimalField, validate } from '../../ui/form.tsx';
import { MerchantPage } from '../MerchantPage.tsx';
import '../dev/dev.css';
import { type FeeTerms, feesFor } from './fees.ts';

function Fact({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        {value}
        {hint && <span className="field-hint fee-hint">{hint}</span>}
      </dd>
    </div>
  );
}

/** What an amount would cost, with the merchant's own terms. */
function Calculator({ terms, currency }: { terms: FeeTerms; currency: string }) {
  const t = useT();
  const [draft, setDraft] = useState('1000.00');
  const checked = validate(amountSchema, draft);
  const fees = checked.ok ? feesFor(checked.data, terms) : null;
  const money = (v: string) => `${thousands(v)} ${currency}`;
  return (
    <Card id="fee-calculator" title={t('screens.fees.calculator')}>
      <DecimalField
        label={t('screens.fees.amount')}
        value={draft}
        onValue={setDraft}
        error={checked.ok ? undefined : checked.errors['']}
      />
      {fees && (
        <dl className="facts fee-facts" data-testid="fee-calculation">
          <Fact label={t('screens.fees.payinFee')} value={money(fees.payinFee)} />
          <Fact label={t('screens.fees.payinCredited')} value={money(fees.payinCredited)} />
          <Fact label={t('screens.fees.payoutFeeFor')} value={money(fees.payoutFee)} />
          <Fact label={t('screens.fees.payoutDebited')} value={money(fees.payoutDebited)} />
        </dl>
      )}
    </Card>
  );
}

/** Fee settings: the merchant's rates and fees as the platform set them, and the surcharge it sets itself. */
export default function FeeScreen() {
  const t = useT();
  return (
    <MerchantPage
      title={t('commands.fees.settings.title')}
      actions={<CommandButton id="fees.surchargeUpdate" primary />}
    >
      {(m) => (
        <>
          <Card id="fees-payin" title={t('screens.fees.payins')}>
            <dl className="facts fee-facts">
              <Fact label={t('screens.fees.collectionRate')} value={`${m.collectionRate} %`} />
              <Fact
                label={t('screens.fees.platformFee')}
                value={`${thousands(m.platformFee)} ${m.currency}`}
              />
              <Fact label={t('screens.fees.minAmount')} value={`${thousands(m.minAmount)} ${m.currency}`} />
              <Fact label={t('screens.fees.maxAmount')} value={`${thousands(m.maxAmount)} ${m.currency}`} />
              <Fact
                label={t('screens.fees.settlementCycle')}
                value={m.settlementCycle ?? 'D0'}
                hint={
                  (m.settlementCycle ?? 'D0') === 'D0'
                    ? t('screens.fees.cycleD0')
                    : t('screens.fees.cycleTn', { n: Number((m.settlementCycle ?? 'D0').slice(1)) })
                }
              />
            </dl>
          </Card>
          <Card id="fees-payout" title={t('screens.fees.payouts')}>
            <dl className="facts fee-facts">
              <Fact label={t('screens.fees.payoutRate')} value={`${m.payoutRate} %`} />
              <Fact label={t('screens.fees.payoutFee')} value={`${thousands(m.payoutFee)} ${m.currency}`} />
            </dl>
          </Card>
          <Card id="fees-other" title={t('screens.fees.other')}>
            <dl className="facts fee-facts">
              <Fact
                label={t('screens.fees.surcharge')}
                value={`${m.surcharge} %`}
                hint={t('screens.fees.surchargeHint')}
              />
              <Fact
                label={t('screens.fees.exchangeRate')}
                value={m.exchangeRate}
                hint={t('screens.fees.exchangeRateHint')}
              />
              <Fact label={t('screens.fees.currency')} value={m.currency} />
            </dl>
          </Card>
          <Calculator terms={m} currency={m.currency} />
        </>
      )}
    </MerchantPage>
  );
}
