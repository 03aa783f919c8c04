import { useStore } from '@nanostores/react';
import { useEffect, useRef, useState } from 'react';
import { endpoints, errno, type Input } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import { amountInWords } from '../../lib/amountWords.ts';
import { api } from '../../lib/api.ts';
import { $language } from '../../lib/i18n.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { TextAreaField } from '../../ui/fields.tsx';
import { DecimalField, Field, GoogleCodeField, useForm, VerbatimField, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { money } from '../order/parts.tsx';
import { type PayeeField, type PayeeReading, parsePayee, payeeFields } from './parsePayee.ts';
import '../order/order.css';
import './payout.css';

type Transfer = Input<typeof endpoints.merchantPayout.create>;

/**
 * The payee box: what was pasted or typed in it, read into the payee fields (a field the text leaves
 * unsure is emptied: a value from an earlier paste would pass for checked). A paste that fills every payee
 * field hands the focus on to the Google code (`codeRef`), the one field left.
 */
function usePayeeBox(set: (field: PayeeField, value: string) => void) {
  const [pasted, setPasted] = useState('');
  const [reading, setReading] = useState<PayeeReading | null>(null);
  const justPasted = useRef(false);
  const codeRef = useRef<HTMLInputElement>(null);
  const readPaste = (text: string) => {
    setPasted(text);
    const pastedNow = justPasted.current;
    justPasted.current = false;
    if (!text.trim()) return setReading(null);
    const next = parsePayee(text);
    for (const f of payeeFields) {
      const value = next.payee[f] ?? (next.unsure.includes(f) ? '' : undefined);
      if (value !== undefined) set(f, value);
    }
    setReading(next);
    const complete = next.unsure.length === 0 && payeeFields.every((f) => next.payee[f]);
    if (pastedNow && complete) window.setTimeout(() => codeRef.current?.focus(), 0);
  };
  // Read by the change the paste makes, which comes first; a paste that changes nothing leaves none.
  const onPaste = () => {
    justPasted.current = true;
    window.setTimeout(() => {
      justPasted.current = false;
    }, 0);
  };
  return { pasted, reading, readPaste, onPaste, codeRef };
}

/**
 * Single transfer: one payout from the console. Pasting the payee's details (a message, a spreadsheet
 * row) fills the fields it is sure of and marks those it is not; the same schemas as the server's check
 * the form, then a review step shows the payee and the amount in words, and only its confirm button
 * sends the payout with the Google code entered on the form (the server spends the code on that one call).
 */
export default function SingleTransferDialog({ close }: { close: (result?: unknown) => void }) {
  const t = useT();
  const formRef = useOpeningFocus('textarea');
  const [review, setReview] = useState<{ transfer: Transfer; minor: number } | null>(null);
  // What submitted the form (a field by Enter, or the button): it has the focus again after Back.
  const submitter = useRef<HTMLElement | null>(null);
  const form = useForm({
    accountName: '',
    accountNumber: '',
    ifsc: '',
    amount: '',
    merchantOrderNo: '',
    code: '',
  });
  const { values, set, errors } = form;

  const { pasted, reading, readPaste, onPaste, codeRef } = usePayeeBox(set);

  /** A field the paste left unsure says so until someone types into it; it stops the review, empty. */
  const problem = (f: PayeeField) =>
    reading?.unsure.includes(f) && !values[f].trim() ? t('screens.payout.transfer.unsureField') : errors[f];
  /** A payee field's value and setter, with its problem for error. */
  const payee = (f: PayeeField) => ({ ...form.field(f), error: problem(f) });

  const toReview = (e: React.FormEvent) => {
    e.preventDefault();
    const transfer = {
      accountName: values.accountName.trim(),
      accountNumber: values.accountNumber.replace(/[\s-]/g, ''),
      ifsc: values.ifsc.trim().toUpperCase(),
      amount: values.amount.replace(/,/g, '').trim(),
      code: values.code.trim(),
      ...(values.merchantOrderNo.trim() ? { merchantOrderNo: values.merchantOrderNo.trim() } : {}),
    };
    const valid = validate(endpoints.merchantPayout.create.input, transfer);
    if (!valid.ok) return form.setErrors(valid.errors);
    submitter.current = document.activeElement as HTMLElement | null;
    setReview({ transfer, minor: valid.data.amount });
  };

  const backToForm = () => {
    setReview(null);
    // The form is shown again in this render's commit; focus it after.
    window.setTimeout(() => submitter.current?.focus(), 0);
  };

  const send = (transfer: Transfer) =>
    form.submit(async () => {
      try {
        const payout = await api(endpoints.merchantPayout.create, transfer, { quiet: [errno.invalid] });
        toast(
          'success',
          t('screens.payout.transfer.done', { orderNo: payout.orderNo, amount: money(payout.amount) }),
        );
        close(true);
      } catch (error) {
        // A refused code or field is shown next to it, on the form.
        backToForm();
        throw error;
      }
    });

  return (
    // While the review shows, Escape means Back (below), not closing the dialog.
    <Modal title={t('commands.merchantPayout.create.title')} onClose={() => close()} persistent={!!review}>
      <div hidden={!!review}>
        <form ref={formRef} className="form" onSubmit={toReview} noValidate>
          <TextAreaField
            label={t('screens.payout.transfer.paste')}
            value={pasted}
            onValue={readPaste}
            onPaste={onPaste}
            hint={<PasteHint reading={reading} />}
            rows={3}
            spellCheck={false}
          />
          <Field
            label={t('screens.payout.accountName')}
            {...payee('accountName')}
            autoComplete="off"
            required
          />
          <div className="field-row">
            <Field
              label={t('screens.payout.accountNumber')}
              {...payee('accountNumber')}
              inputMode="numeric"
              autoComplete="off"
              required
            />
            <VerbatimField label={t('screens.payout.ifsc')} {...payee('ifsc')} required />
          </div>
          <div className="field-row">
            <DecimalField label={t('screens.payout.amount')} {...payee('amount')} required />
            <Field
              label={t('screens.payout.merchantOrderNoOptional')}
              {...form.field('merchantOrderNo')}
              autoComplete="off"
            />
          </div>
          <GoogleCodeField
            ref={codeRef}
            value={values.code}
            onValue={(v) => set('code', v)}
            error={errors.code}
          />
          <div className="form-actions">
            <button type="button" className="button" onClick={() => close()}>
              {t('app.cancel')}
            </button>
            <button type="submit" className="button primary">
              {t('screens.payout.transfer.review')}
            </button>
          </div>
        </form>
      </div>
      {review && (
        <TransferReview
          transfer={review.transfer}
          minor={review.minor}
          busy={form.busy}
          onBack={backToForm}
          onConfirm={() => void send(review.transfer)}
        />
      )}
    </Modal>
  );
}

/** Under the paste box: what was filled in, what was left for the user, or the example. */
function PasteHint({ reading }: { reading: PayeeReading | null }) {
  const t = useT();
  if (!reading) return t('screens.payout.transfer.pasteHint');
  const list = (fields: readonly PayeeField[]) =>
    fields.map((f) => t(`screens.payout.${f}`)).join(t('screens.payout.transfer.listSeparator'));
  const found = payeeFields.filter((f) => reading.payee[f] !== undefined);
  if (found.length === 0 && reading.unsure.length === 0) return t('screens.payout.transfer.pasteNothing');
  return (
    <>
      {found.length > 0 && t('screens.payout.transfer.pasteFound', { fields: list(found) })}
      {found.length > 0 && reading.unsure.length > 0 && ' '}
      {reading.unsure.length > 0 && (
        <strong className="transfer-unsure">
          {t('screens.payout.transfer.pasteUnsure', { fields: list(reading.unsure) })}
        </strong>
      )}
    </>
  );
}

/** "50100234567890" → "5010 0234 5678 90": groups of four, as people read an account out. */
const grouped = (account: string) => account.replace(/(\d{4})(?=\d)/g, '$1 ');

/**
 * The review before the money moves: the payee, the account grouped for reading, the amount in figures
 * and in words. The confirm button has the focus, so Enter sends; Back and Escape return to the form.
 */
function TransferReview({
  transfer,
  minor,
  busy,
  onBack,
  onConfirm,
}: {
  transfer: Transfer;
  minor: number;
  busy: boolean;
  onBack: () => void;
  onConfirm: () => void;
}) {
  const t = useT();
  const language = useStore($language);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => confirmRef.current?.focus(), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !busy) onBack();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [busy, onBack]);

  return (
    <section className="form transfer-review" aria-label={t('screens.payout.transfer.reviewTitle')}>
      <p className="notice">{t('screens.payout.transfer.reviewNote')}</p>
      <dl className="order-summary">
        <dt>{t('screens.payout.accountName')}</dt>
        <dd>{transfer.accountName}</dd>
        <dt>{t('screens.payout.accountNumber')}</dt>
        <dd className="transfer-account">{grouped(transfer.accountNumber)}</dd>
        <dt>{t('screens.payout.ifsc')}</dt>
        <dd className="transfer-account">{transfer.ifsc}</dd>
        <dt>{t('screens.payout.amount')}</dt>
        <dd className="transfer-amount">{money(formatMinor(minor))}</dd>
        <dt>{t('screens.payout.transfer.inWords')}</dt>
        <dd className="transfer-words">{amountInWords(minor, language)}</dd>
        {transfer.merchantOrderNo && (
          <>
            <dt>{t('screens.order.merchantOrderNo')}</dt>
            <dd>{transfer.merchantOrderNo}</dd>
          </>
        )}
      </dl>
      <div className="form-actions">
        <button type="button" className="button" onClick={onBack} disabled={busy}>
          {t('screens.payout.transfer.back')}
        </button>
        <button type="button" className="button primary" ref={confirmRef} onClick={onConfirm} disabled={busy}>
          {t('screens.payout.transfer.submit')}
        </button>
      </div>
    </section>
  );
}
