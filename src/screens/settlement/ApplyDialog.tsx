import { useStore } from '@nanostores/react';
import { useState } from 'react';
import { settlementWallets } from '../../../commands/index.ts';
import { allows, endpoints, errno, type Output } from '../../../contract/index.ts';
import { formatMinor, toMinor } from '../../../contract/money.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { Fact } from '../../ui/Fact.tsx';
import { SelectField, valueOptions } from '../../ui/fields.tsx';
import {
  CodeAndActions,
  DecimalField,
  Field,
  RefusalNote,
  toldThenClose,
  useForm,
  VerbatimField,
} from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { money, type Settlement, SettlementSummary, useAvailable, type Wallet, walletApi } from './parts.tsx';
import '../order/order.css';
import './settlement.css';

type Answer = Output<typeof endpoints.settlementPayment.create>;

/** Refusals said inside the dialog: the balance does not cover it, or the application moved on meanwhile. */
const refusals = [errno.insufficientBalance, errno.conflict, errno.notFound];

/** An amount as typed, in minor units, or null when it is not one (the schema says why). */
const minorOf = (typed: string) => (/^\d+(\.\d{1,2})?$/.test(typed.trim()) ? toMinor(typed.trim()) : null);

/**
 * A merchant applies to take money out of one wallet, to its bank account or a USDT address, confirmed
 * with its Google code; the answer says the fee held with the amount. With `settlement` it edits an
 * application still to be confirmed (its type stays; a new amount recomputes the fee).
 */
export default function ApplyDialog({
  wallet,
  settlement,
  close,
}: {
  wallet: Wallet;
  settlement?: Settlement;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const api = walletApi(wallet);
  const { base } = settlementWallets[wallet];
  const formRef = useOpeningFocus();
  const canBalance = allows(useStore($grants), [endpoints.merchantWallet.info]);
  const balance = useAvailable(wallet, undefined, canBalance);
  const form = useForm({
    type: settlement?.type ?? ('bank' as Settlement['type']),
    amount: settlement?.amount ?? '',
    accountName: settlement?.accountName ?? '',
    cardNumber: settlement?.cardNumber ?? '',
    ifsc: settlement?.ifsc ?? '',
    returnAddress: settlement?.returnAddress ?? '',
    code: '',
  });
  const { values, set, errors } = form;
  const { unbound, refusal, call } = useCodeConfirmed(form, refusals);
  const [applied, setApplied] = useState<Answer | null>(null);
  const bank = values.type === 'bank';
  const title = t(`commands.${base}.${settlement ? 'update' : 'create'}.title`);

  const destination = bank
    ? { accountName: values.accountName, cardNumber: values.cardNumber, ifsc: values.ifsc }
    : { returnAddress: values.returnAddress };

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const code = values.code.trim();
    const amount = values.amount.trim();
    if (settlement) {
      // Only what changed is sent: an unchanged amount keeps the fee the merchant was told.
      const changed = Object.fromEntries(
        Object.entries(destination).filter(
          ([k, v]) => v.trim() !== (settlement[k as keyof Settlement] ?? ''),
        ),
      );
      const sameAmount = minorOf(amount) !== null && minorOf(amount) === toMinor(settlement.amount);
      const input = { id: settlement.id, ...(sameAmount ? {} : { amount }), ...changed, code };
      const updated = toldThenClose(close, (done: Output<typeof api.update>) =>
        t('screens.settlement.updated', {
          settlementNo: done.settlementNo,
          amount: money(done.amount),
          fee: money(done.fee),
        }),
      );
      return form.send(api.update, input, updated, { blankIsMissing: true, via: call });
    }
    const input = { type: values.type, amount, ...destination, code };
    form.send(api.create, input, setApplied, {
      blankIsMissing: true,
      // The destination rule reports on `type`; its missing fields are what the person must fill.
      explain: (errors) => {
        const { type: _, ...missing } = errors;
        return Object.keys(missing).length ? missing : errors;
      },
      via: call,
    });
  };

  if (applied) {
    const held = formatMinor(toMinor(applied.amount) + toMinor(applied.fee));
    const moneyFact = (label: string, amount: string) => (
      <Fact label={label} className="money">
        {money(amount)} {applied.currency}
      </Fact>
    );
    return (
      <Modal title={title} onClose={() => close(true)}>
        <div className="form" data-testid="settlement-applied">
          <p role="status">{t('screens.settlement.appliedText', { settlementNo: applied.settlementNo })}</p>
          <dl className="facts">
            <Fact label={t('screens.settlement.settlementNo')} className="mono">
              {applied.settlementNo}
            </Fact>
            {moneyFact(t('screens.settlement.amount'), applied.amount)}
            {moneyFact(t('screens.settlement.fee'), applied.fee)}
            {moneyFact(t('screens.settlement.held'), held)}
          </dl>
          <div className="form-actions">
            <button
              type="button"
              className="button primary"
              onClick={() => close(true)}
              // biome-ignore lint/a11y/noAutofocus: the one thing left to do; Enter closes it
              autoFocus
            >
              {t('app.done')}
            </button>
          </div>
        </div>
      </Modal>
    );
  }

  return (
    <Modal title={title} description={t(`screens.settlement.applyHint.${wallet}`)} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {settlement && <SettlementSummary row={settlement} />}
        {balance && (
          <dl className="facts settlement-balance">
            <Fact label={t(`screens.settlement.available.${wallet}`)} className="money">
              {money(balance.available)} {balance.currency}
            </Fact>
          </dl>
        )}
        {unbound && <UnboundNotice close={() => close()} />}
        <RefusalNote refusal={refusal} />
        {!settlement && (
          <SelectField
            label={t('screens.settlement.type')}
            value={values.type}
            onValue={(v) => set('type', v as Settlement['type'])}
            options={valueOptions(['bank', 'usdt'], (v) => t(`screens.settlement.types.${v}`))}
            error={errors.type}
          />
        )}
        <DecimalField
          label={t('screens.settlement.amount')}
          {...form.field('amount')}
          hint={t('screens.settlement.amountHint')}
          required
        />
        {bank ? (
          <>
            <Field
              label={t('screens.settlement.accountName')}
              {...form.field('accountName')}
              maxLength={100}
              autoComplete="off"
              required
            />
            <VerbatimField
              label={t('screens.settlement.cardNumber')}
              {...form.field('cardNumber')}
              inputMode="numeric"
              maxLength={20}
              required
            />
            <VerbatimField
              label={t('screens.settlement.ifsc')}
              {...form.field('ifsc')}
              maxLength={11}
              required
            />
          </>
        ) : (
          <VerbatimField
            label={t('screens.settlement.returnAddress')}
            {...form.field('returnAddress')}
            hint={t('screens.settlement.returnAddressHint')}
            maxLength={42}
            required
          />
        )}
        <CodeAndActions form={form} onCancel={() => close()} submitLabel={title} />
      </form>
    </Modal>
  );
}
