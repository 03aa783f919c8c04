import { useQuery } from '@tanstack/react-query';
import { adjustmentWallets } from '../../../contract/endpoints/adjustment.ts';
import { endpoints, errno } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { SelectField, valueOptions } from '../../ui/fields.tsx';
import {
  CodeAndActions,
  DecimalField,
  ReasonField,
  RefusalNote,
  toldThenClose,
  useForm,
} from '../../ui/form.tsx';
import { MerchantPicker } from '../../ui/MerchantPicker.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';

type Wallet = (typeof adjustmentWallets)[number];
type Direction = 'credit' | 'debit';

/** Said inside the dialog: the debit is more than the wallet holds, or a request for the wallet waits already. */
const refusals = [errno.insufficientBalance, errno.approvalPending, errno.notFound];

/**
 * A new balance adjustment: the merchant, its wallet, credit or debit, the amount and why, confirmed with
 * the Google code. The wallet's balance is shown beside it; above the maker–checker threshold the dialog
 * closes with word that a second person was asked.
 */
export default function AdjustmentDialog({
  merchantId,
  close,
}: {
  merchantId?: number;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({
    merchantId: merchantId as number | undefined,
    wallet: 'collection_available' as Wallet,
    direction: 'credit' as Direction,
    amount: '',
    reason: '',
    code: '',
  });
  const { values, set, errors } = form;
  const { unbound, refusal, call } = useCodeConfirmed(form, refusals, () => close(true));
  const balances = useQuery({
    queryKey: ['adjustment-balances', values.merchantId ?? null],
    queryFn: ({ signal }) =>
      api(endpoints.merchantWallet.info, { merchantId: values.merchantId }, { signal }),
    enabled: values.merchantId !== undefined,
  });
  const b = balances.data;
  const held = b
    ? values.wallet === 'payout_available'
      ? b.payout.available
      : b.collection.available
    : null;

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    if (values.merchantId === undefined) return form.setErrors({ merchantId: t('validation.required') });
    const input = {
      merchantId: values.merchantId,
      wallet: values.wallet,
      direction: values.direction,
      amount: values.amount.trim(),
      reason: values.reason.trim(),
      code: values.code.trim(),
    };
    const applied = toldThenClose(close, (done: { amount: string; merchantCode: string }) =>
      t('screens.adjustment.applied', { amount: thousands(done.amount), merchant: done.merchantCode }),
    );
    form.send(endpoints.balanceAdjustment.create, input, applied, { blankIsMissing: true, via: call });
  };

  return (
    <Modal title={t('commands.balanceAdjustment.create.title')} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <p className="notice" role="note">
          {t('screens.adjustment.note')}
        </p>
        {unbound && <UnboundNotice close={() => close()} />}
        <RefusalNote refusal={refusal} />
        <div className={`field${errors.merchantId ? ' has-error' : ''}`}>
          <MerchantPicker value={values.merchantId} onValue={(id) => set('merchantId', id)} />
          {errors.merchantId && <p className="field-error">{errors.merchantId}</p>}
        </div>
        <SelectField
          label={t('screens.adjustment.wallet')}
          value={values.wallet}
          onValue={(v) => set('wallet', v as Wallet)}
          error={errors.wallet}
          hint={
            held !== null && b
              ? t('screens.adjustment.balanceNow', { amount: thousands(held), currency: b.currency })
              : undefined
          }
          options={valueOptions(adjustmentWallets, (w) => t(`screens.wallet.accounts.${w}`))}
        />
        <SelectField
          label={t('screens.adjustment.direction')}
          value={values.direction}
          onValue={(v) => set('direction', v as Direction)}
          error={errors.direction}
          options={valueOptions(['credit', 'debit'], (d) => t(`screens.adjustment.directions.${d}`))}
        />
        <DecimalField
          label={t('screens.adjustment.amount')}
          {...form.field('amount')}
          hint={t('screens.adjustment.amountHint')}
          required
        />
        <ReasonField
          label={t('screens.adjustment.reason')}
          {...form.field('reason')}
          hint={t('screens.adjustment.reasonHint')}
        />
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={t(`screens.adjustment.submit.${values.direction}`)}
          tone={values.direction === 'debit' ? 'danger' : 'primary'}
        />
      </form>
    </Modal>
  );
}
