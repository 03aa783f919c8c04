import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { allows, endpoints, errno, type Output } from '../../../contract/index.ts';
import { api, isApiError } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice } from '../../ui/codeConfirmed.tsx';
import { Fact } from '../../ui/Fact.tsx';
import { DecimalField, FormActions, GoogleCodeField, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import './wallet.css';

const { merchantWallet } = endpoints;
type Preview = Output<typeof merchantWallet.transferVerify>;

/** Errors a transfer answers that belong next to a field, in the user's language. */
const fieldOf: Partial<Record<number, 'amount' | 'code'>> = {
  [errno.badCode]: 'code',
  [errno.accountLocked]: 'code',
  [errno.insufficientBalance]: 'amount',
};
const quiet = [
  errno.invalid,
  errno.badCode,
  errno.accountLocked,
  errno.insufficientBalance,
  errno.googleNotBound,
];

/**
 * Transfer from the collection balance to the payout balance: amount and Google code, a preview checked
 * by the server (`transferVerify`, which does not use the code up), then the transfer with the same code.
 */
export default function TransferDialog({ close }: { close: (result?: unknown) => void }) {
  const t = useT();
  const canRead = allows(useStore($grants), [merchantWallet.info]);
  const info = useQuery({
    queryKey: ['wallet-info', null],
    queryFn: ({ signal }) => api(merchantWallet.info, {}, { signal }),
    enabled: canRead,
  });
  const form = useForm({ amount: '', code: '' });
  const { values, set, errors } = form;
  const [preview, setPreview] = useState<Preview | null>(null);
  const [unbound, setUnbound] = useState(false);

  /** Runs a call, placing the errors the user can fix next to their fields. */
  const attempt = async <T,>(work: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await work();
    } catch (error) {
      if (isApiError(error, errno.googleNotBound)) setUnbound(true);
      else if (isApiError(error) && fieldOf[error.errno]) {
        form.setErrors({ [fieldOf[error.errno] as string]: t(`errno.${error.errno}`) });
        setPreview(null);
      } else throw error;
      return undefined;
    }
  };

  const input = { amount: values.amount.trim(), code: values.code.trim() };
  const onPreview = (e: React.FormEvent) => {
    e.preventDefault();
    form.send(merchantWallet.transferVerify, input, setPreview, {
      blankIsMissing: true,
      via: (endpoint, checked) => attempt(() => api(endpoint, checked, { quiet })),
    });
  };
  const onTransfer = () =>
    void form.submit(async () => {
      const done = await attempt(() => api(merchantWallet.transfer, input, { quiet }));
      if (!done) return;
      toast(
        'success',
        t('screens.wallet.transferred', { amount: thousands(preview?.amount ?? input.amount) }),
      );
      close(true);
    });

  const b = info.data;
  return (
    <Modal title={t('commands.merchantWallet.transfer.title')} onClose={() => close()}>
      {b && (
        <dl className="facts transfer-balances">
          <Fact label={t('screens.wallet.accounts.collection_available')} className="money">
            {thousands(b.collection.available)} {b.currency}
          </Fact>
          <Fact label={t('screens.wallet.accounts.payout_available')} className="money">
            {thousands(b.payout.available)} {b.currency}
          </Fact>
        </dl>
      )}
      {unbound && <UnboundNotice close={() => close()} />}
      {!preview ? (
        <form className="form" onSubmit={onPreview} noValidate>
          <div className="field-row">
            <DecimalField label={t('screens.wallet.amount')} {...form.field('amount')} autoFocus required />
            {b && b.collection.available !== '0.00' && (
              // Out of the tab order: amount, code, Enter is the keyboard path; this is the mouse's shortcut.
              <button
                type="button"
                className="button"
                tabIndex={-1}
                onClick={() => set('amount', b.collection.available)}
              >
                {t('screens.wallet.all')}
              </button>
            )}
          </div>
          <GoogleCodeField value={values.code} onValue={(v) => set('code', v)} error={errors.code} />
          <FormActions busy={form.busy} onCancel={() => close()} submitLabel={t('screens.wallet.preview')} />
        </form>
      ) : (
        <div className="form">
          <p>
            {t('screens.wallet.previewText', {
              amount: thousands(preview.amount),
              currency: b?.currency ?? '',
            })}
          </p>
          <dl className="facts">
            <Fact label={t('screens.wallet.collectionAfter')} className="money">
              {thousands(preview.collectionAfter)}
            </Fact>
            <Fact label={t('screens.wallet.payoutAfter')} className="money">
              {thousands(preview.payoutAfter)}
            </Fact>
          </dl>
          <div className="form-actions">
            <button type="button" className="button" onClick={() => setPreview(null)}>
              {t('screens.wallet.back')}
            </button>
            <button
              type="button"
              className="button primary"
              onClick={onTransfer}
              disabled={form.busy}
              // biome-ignore lint/a11y/noAutofocus: the preview's one decision; Enter confirms it
              autoFocus
            >
              {t('screens.wallet.confirmTransfer')}
            </button>
          </div>
        </div>
      )}
    </Modal>
  );
}
