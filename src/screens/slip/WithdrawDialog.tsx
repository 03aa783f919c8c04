import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import * as z from 'zod/mini';
import { endpoints } from '../../../contract/index.ts';
import { slipLine } from '../../../contract/machines.ts';
import { moneyCode, utr } from '../../../contract/schemas.ts';
import { api } from '../../lib/api.ts';
import { codeFor } from '../../lib/moneySession.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, Field, issueText, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { money } from '../order/parts.tsx';
import { objectName, type Slip } from './parts.tsx';
import './slip.css';

/**
 * Marks lines of a slip withdrawn: the bank's reference (UTR) typed beside each line the bank sent;
 * lines left blank keep waiting. Each settlement is completed and each payout marked a success with
 * its reference, all at once (a refusal of one leaves every line as it was). Opened on one line, its
 * field takes the focus.
 */
export default function WithdrawDialog({
  slip,
  lineId,
  close,
}: {
  slip: Slip;
  lineId?: number;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const form = useForm({ code: '' });
  const { unbound, call } = useCodeConfirmed(form);
  const [refs, setRefs] = useState<Record<number, string>>({});
  const [refErrors, setRefErrors] = useState<Record<number, string>>({});
  const info = useQuery({
    queryKey: ['slip-info', slip.id],
    queryFn: ({ signal }) => api(endpoints.withdrawalSlip.info, { id: slip.id }, { signal }),
  });
  const waiting = (info.data?.lines ?? []).filter((l) => slipLine.can('withdraw', l.status));
  // The lines arrive after the dialog opens: the focus goes to the chosen line's field (or the first) then,
  // a task later, once the dialog's own focus scope is settled over the drawer's.
  const formRef = useOpeningFocus(lineId ? `input[data-line="${lineId}"]` : 'input', info.isSuccess);

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const errors: Record<number, string> = {};
    const lines: { lineId: number; reference: string }[] = [];
    for (const l of waiting) {
      const typed = (refs[l.id] ?? '').trim();
      if (!typed) continue;
      const checked = z.safeParse(utr, typed);
      if (checked.success) lines.push({ lineId: l.id, reference: checked.data });
      else errors[l.id] = issueText(checked.error.issues[0]!);
    }
    setRefErrors(errors);
    if (Object.keys(errors).length) return;
    if (!lines.length) return form.setErrors({ code: t('screens.slip.noReference') });
    const code = codeFor(endpoints.withdrawalSlip.withdraw, form.values.code);
    // The contract's own rule for the code (six digits, or the open money session's).
    if (!z.safeParse(moneyCode, code).success) return form.setErrors({ code: t('validation.code6') });
    void form.submit(async () => {
      const done = await call(endpoints.withdrawalSlip.withdraw, { id: slip.id, lines, code });
      if (!done) return;
      toast('success', t('screens.slip.withdrawn', { slipNo: done.slipNo, lines: lines.length }));
      close(true);
    });
  };

  return (
    <Modal
      title={t('commands.withdrawalSlip.withdraw.title')}
      description={t('screens.slip.withdrawHint', { slipNo: slip.slipNo })}
      onClose={() => close()}
      variant="sheet"
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {unbound && <UnboundNotice close={() => close()} />}
        <div className="slip-refs">
          {waiting.map((l) => (
            <div key={l.id} className="slip-ref">
              <div>
                <div className="mono">
                  #{l.lineNo} {objectName(l)}
                </div>
                <div className="muted">
                  {l.beneficiaryName} · {money(l.amount)} {slip.currency}
                </div>
              </div>
              <Field
                label={t('screens.slip.reference')}
                value={refs[l.id] ?? ''}
                onValue={(v) => setRefs((r) => ({ ...r, [l.id]: v }))}
                error={refErrors[l.id]}
                data-line={l.id}
                autoComplete="off"
                maxLength={32}
              />
            </div>
          ))}
          {info.isSuccess && waiting.length === 0 && (
            <p className="muted">{t('screens.slip.nothingWaiting')}</p>
          )}
        </div>
        <CodeAndActions
          endpoint={endpoints.withdrawalSlip.withdraw}
          form={form}
          onCancel={() => close()}
          submitLabel={t('commands.withdrawalSlip.withdraw.title')}
        />
      </form>
    </Modal>
  );
}
