import { useState } from 'react';
import { endpoints, errno } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { TextAreaField } from '../../ui/fields.tsx';
import { Field, GoogleCodeField, useForm, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { money } from '../order/parts.tsx';
import { type Payee, parsePayee } from './parsePayee.ts';
import '../order/order.css';

const payeeFields = ['accountName', 'accountNumber', 'ifsc', 'amount'] as const;

/**
 * Single transfer: one payout from the console, confirmed with the user's Google code. Pasting the
 * payee's details (a message, a spreadsheet row) fills the fields; the same schemas as the server's
 * check them before anything is sent.
 */
export default function SingleTransferDialog({ close }: { close: (result?: unknown) => void }) {
  const t = useT();
  const formRef = useOpeningFocus('textarea');
  const [pasted, setPasted] = useState('');
  const [found, setFound] = useState<(keyof Payee)[] | null>(null);
  const form = useForm({
    accountName: '',
    accountNumber: '',
    ifsc: '',
    amount: '',
    merchantOrderNo: '',
    code: '',
  });
  const { values, set, errors } = form;

  const readPaste = (text: string) => {
    setPasted(text);
    if (!text.trim()) return setFound(null);
    const payee = parsePayee(text);
    const got = payeeFields.filter((f) => payee[f] !== undefined);
    for (const f of got) set(f, payee[f] ?? '');
    setFound(got);
  };

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    void form.submit(async () => {
      const input = {
        accountName: values.accountName,
        accountNumber: values.accountNumber.replace(/[\s-]/g, ''),
        ifsc: values.ifsc.trim().toUpperCase(),
        amount: values.amount.replace(/,/g, '').trim(),
        code: values.code.trim(),
        ...(values.merchantOrderNo.trim() ? { merchantOrderNo: values.merchantOrderNo.trim() } : {}),
      };
      const valid = validate(endpoints.merchantPayout.create.input, input);
      if (!valid.ok) return form.setErrors(valid.errors);
      const payout = await api(endpoints.merchantPayout.create, input, { quiet: [errno.invalid] });
      toast(
        'success',
        t('screens.payout.transfer.done', { orderNo: payout.orderNo, amount: money(payout.amount) }),
      );
      close(true);
    });
  };

  return (
    <Modal title={t('commands.merchantPayout.create.title')} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <TextAreaField
          label={t('screens.payout.transfer.paste')}
          value={pasted}
          onValue={readPaste}
          hint={
            found === null
              ? t('screens.payout.transfer.pasteHint')
              : found.length === 0
                ? t('screens.payout.transfer.pasteNothing')
                : t('screens.payout.transfer.pasteFound', {
                    fields: found
                      .map((f) => t(`screens.payout.${f}`))
                      .join(t('screens.payout.transfer.listSeparator')),
                  })
          }
          rows={3}
          spellCheck={false}
        />
        <Field
          label={t('screens.payout.accountName')}
          value={values.accountName}
          onValue={(v) => set('accountName', v)}
          error={errors.accountName}
          autoComplete="off"
          required
        />
        <div className="field-row">
          <Field
            label={t('screens.payout.accountNumber')}
            value={values.accountNumber}
            onValue={(v) => set('accountNumber', v)}
            error={errors.accountNumber}
            inputMode="numeric"
            autoComplete="off"
            required
          />
          <Field
            label={t('screens.payout.ifsc')}
            value={values.ifsc}
            onValue={(v) => set('ifsc', v)}
            error={errors.ifsc}
            autoComplete="off"
            spellCheck={false}
            required
          />
        </div>
        <div className="field-row">
          <Field
            label={t('screens.payout.amount')}
            value={values.amount}
            onValue={(v) => set('amount', v)}
            error={errors.amount}
            inputMode="decimal"
            autoComplete="off"
            required
          />
          <Field
            label={t('screens.payout.merchantOrderNoOptional')}
            value={values.merchantOrderNo}
            onValue={(v) => set('merchantOrderNo', v)}
            error={errors.merchantOrderNo}
            autoComplete="off"
          />
        </div>
        <GoogleCodeField value={values.code} onValue={(v) => set('code', v)} error={errors.code} />
        <div className="form-actions">
          <button type="button" className="button" onClick={() => close()}>
            {t('app.cancel')}
          </button>
          <button type="submit" className="button primary" disabled={form.busy}>
            {t('screens.payout.transfer.submit')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
