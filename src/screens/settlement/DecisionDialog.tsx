import { useId, useRef, useState } from 'react';
import { settlementWallets } from '../../../commands/index.ts';
import { errno } from '../../../contract/index.ts';
import { toMinor } from '../../../contract/money.ts';
import { api, base64Of } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, Field, missingFirst, useForm, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { money, type Settlement, SettlementSummary, walletApi } from './parts.tsx';
import '../order/order.css';
import './settlement.css';

export type Decision = 'confirm' | 'complete' | 'reject';

/**
 * The rules that refuse a decision, said inside the dialog: the person who confirmed may not complete,
 * a second approval is already asked for, it is on a withdrawal slip, or it moved on meanwhile.
 */
const refusals = [
  errno.sameUser,
  errno.approvalPending,
  errno.onSlip,
  errno.conflict,
  errno.notFound,
  errno.insufficientBalance,
];

const imageTypes = ['image/png', 'image/jpeg', 'image/webp'] as const;
type ImageType = (typeof imageTypes)[number];
/** The server's limits, checked here first so a large photo is refused before it is sent. */
const maxImageBytes = 2 * 1024 * 1024;
const maxImages = 5;

/** Audit amount ÷ price, rounded down to 6 decimals (as the server computes it), or null. */
function usdtOf(audit: string, price: string): string | null {
  if (!/^\d+(\.\d{1,2})?$/.test(audit.trim()) || !/^\d{1,12}(\.\d{1,6})?$/.test(price.trim())) return null;
  const [whole = '0', frac = ''] = price.trim().split('.');
  const priceMicro = BigInt(whole) * 1_000_000n + BigInt(frac.padEnd(6, '0'));
  if (priceMicro === 0n) return null;
  const micro = (BigInt(toMinor(audit.trim())) * 10_000_000_000n) / priceMicro;
  return `${micro / 1_000_000n}.${String(micro % 1_000_000n).padStart(6, '0')}`;
}

/**
 * A platform user's decision on a settlement application, each confirmed with the user's Google code:
 * confirm the audit amount (at most the amount applied; for USDT also the price), complete it with the
 * bank's or the chain's reference and optional proof images, or reject it with a reason.
 */
export default function DecisionDialog({
  settlement,
  decision,
  close,
}: {
  settlement: Settlement;
  decision: Decision;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const calls = walletApi(settlement.wallet);
  const { base } = settlementWallets[settlement.wallet];
  const formRef = useOpeningFocus();
  const form = useForm({
    auditAmount: settlement.amount,
    price: '',
    reference: '',
    reason: '',
    code: '',
  });
  const { values, set, errors } = form;
  const { unbound, refusal, call } = useCodeConfirmed(form, refusals);
  const title = t(`commands.${base}.${decision}.title`);
  const usdt = settlement.type === 'usdt';

  // Proof images: uploaded once each, so a retry after a wrong code does not upload them again.
  const fileId = useId();
  const [files, setFiles] = useState<File[]>([]);
  const [fileError, setFileError] = useState<string | null>(null);
  const uploaded = useRef(new Map<File, number>());
  const choose = (list: FileList | null) => {
    setFileError(null);
    const chosen = [...(list ?? [])];
    if (chosen.length > maxImages)
      return setFileError(t('screens.settlement.tooManyImages', { n: maxImages }));
    if (chosen.some((f) => !imageTypes.includes(f.type as ImageType)))
      return setFileError(t('validation.image'));
    if (chosen.some((f) => f.size > maxImageBytes)) return setFileError(t('validation.imageSize'));
    setFiles(chosen);
  };
  const upload = async (): Promise<number[]> => {
    const ids: number[] = [];
    for (const file of files) {
      let id = uploaded.current.get(file);
      if (id === undefined) {
        const answer = await api(calls.uploadImage, {
          filename: file.name.slice(0, 200),
          mime: file.type as ImageType,
          dataBase64: await base64Of(file),
        });
        id = answer.imageId;
        uploaded.current.set(file, id);
      }
      ids.push(id);
    }
    return ids;
  };

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const code = values.code.trim();
    if (decision === 'confirm') {
      const input = {
        id: settlement.id,
        auditAmount: values.auditAmount.trim(),
        ...(usdt ? { price: values.price.trim() } : {}),
        code,
      };
      const checked = validate(calls.confirm.input, input);
      if (!checked.ok) return form.setErrors(missingFirst(checked.errors, input));
      if (toMinor(input.auditAmount) > toMinor(settlement.amount))
        return form.setErrors({
          auditAmount: t('screens.settlement.auditTooHigh', { amount: money(settlement.amount) }),
        });
      void form.submit(async () => {
        const done = await call(calls.confirm, input);
        if (!done) return;
        toast(
          'success',
          done.approval
            ? t('screens.settlement.approvalAsked', { settlementNo: done.settlementNo })
            : t('screens.settlement.confirmedText', {
                settlementNo: done.settlementNo,
                amount: money(done.auditAmount),
              }),
        );
        close(true);
      });
    } else if (decision === 'complete') {
      const input = { id: settlement.id, reference: values.reference.trim(), code };
      const checked = validate(calls.complete.input, input);
      if (!checked.ok) return form.setErrors(missingFirst(checked.errors, input));
      void form.submit(async () => {
        const attachments = await upload();
        const done = await call(calls.complete, { ...input, ...(attachments.length ? { attachments } : {}) });
        if (!done) return;
        toast('success', t('screens.settlement.completedText', { settlementNo: done.settlementNo }));
        close(true);
      });
    } else {
      const input = { id: settlement.id, reason: values.reason.trim(), code };
      const checked = validate(calls.reject.input, input);
      if (!checked.ok) return form.setErrors(missingFirst(checked.errors, input));
      void form.submit(async () => {
        const done = await call(calls.reject, input);
        if (!done) return;
        toast('success', t('screens.settlement.rejectedText', { settlementNo: done.settlementNo }));
        close(true);
      });
    }
  };

  const usdtAmount = decision === 'confirm' && usdt ? usdtOf(values.auditAmount, values.price) : null;
  return (
    <Modal title={title} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <p className={decision === 'reject' ? 'danger-note' : 'notice'} role="note">
          {t(`screens.settlement.note.${decision}`)}
        </p>
        <SettlementSummary row={settlement} />
        {settlement.approval && (
          <p className="notice" role="status">
            {t('screens.settlement.awaiting', { user: settlement.approval.requestedBy })}
          </p>
        )}
        {unbound && <UnboundNotice close={() => close()} />}
        {refusal && (
          <p className="danger-note" role="alert">
            {refusal}
          </p>
        )}
        {decision === 'confirm' && (
          <>
            <Field
              label={t('screens.settlement.auditAmount')}
              value={values.auditAmount}
              onValue={(v) => set('auditAmount', v)}
              error={errors.auditAmount}
              hint={t('screens.settlement.auditHint', { amount: money(settlement.amount) })}
              inputMode="decimal"
              autoComplete="off"
              required
            />
            {usdt && (
              <Field
                label={t('screens.settlement.price')}
                value={values.price}
                onValue={(v) => set('price', v)}
                error={errors.price}
                hint={
                  usdtAmount
                    ? t('screens.settlement.usdtPreview', { usdt: usdtAmount })
                    : t('screens.settlement.priceHint', { currency: settlement.currency })
                }
                inputMode="decimal"
                autoComplete="off"
                required
              />
            )}
          </>
        )}
        {decision === 'complete' && (
          <>
            <Field
              label={t('screens.settlement.reference')}
              value={values.reference}
              onValue={(v) => set('reference', v)}
              error={errors.reference}
              hint={t(`screens.settlement.referenceHint.${settlement.type}`)}
              maxLength={100}
              autoComplete="off"
              spellCheck={false}
              required
            />
            <div className={`field${fileError ? ' has-error' : ''}`}>
              <label htmlFor={fileId}>{t('screens.settlement.proofs')}</label>
              <input
                id={fileId}
                type="file"
                multiple
                accept={imageTypes.join(',')}
                onChange={(e) => choose(e.target.files)}
                aria-invalid={fileError ? true : undefined}
                aria-describedby={`${fileId}-msg`}
              />
              {fileError ? (
                <p id={`${fileId}-msg`} className="field-error" role="alert">
                  {fileError}
                </p>
              ) : (
                <p id={`${fileId}-msg`} className="field-hint">
                  {files.length
                    ? t('screens.settlement.imagesChosen', { n: files.length })
                    : t('screens.settlement.imagesHint', { n: maxImages })}
                </p>
              )}
            </div>
          </>
        )}
        {decision === 'reject' && (
          <Field
            label={t('screens.settlement.reason')}
            value={values.reason}
            onValue={(v) => set('reason', v)}
            error={errors.reason}
            hint={t('screens.settlement.reasonHint')}
            maxLength={200}
            autoComplete="off"
            required
          />
        )}
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={title}
          tone={decision === 'reject' ? 'danger' : 'primary'}
        />
      </form>
    </Modal>
  );
}
