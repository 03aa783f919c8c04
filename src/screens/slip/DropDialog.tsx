import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { endpoints } from '../../../contract/index.ts';
import { slipLine } from '../../../contract/machines.ts';
import { api } from '../../lib/api.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, toldThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { money } from '../order/parts.tsx';
import { objectName, type Slip } from './parts.tsx';
import './slip.css';

/**
 * Drops a line the bank refused (its settlement or payout is free for another slip; a payout keeps
 * waiting as processing), or voids the whole slip before any line was withdrawn. Either with the
 * user's Google code; the button is the danger one.
 */
export default function DropDialog({
  slip,
  decision,
  lineId,
  close,
}: {
  slip: Slip;
  decision: 'drop' | 'void';
  lineId?: number;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const form = useForm({ code: '' });
  const { unbound, call } = useCodeConfirmed(form);
  const [picked, setPicked] = useState<number | undefined>(lineId);
  const info = useQuery({
    queryKey: ['slip-info', slip.id],
    queryFn: ({ signal }) => api(endpoints.withdrawalSlip.info, { id: slip.id }, { signal }),
    enabled: decision === 'drop',
  });
  const waiting = (info.data?.lines ?? []).filter((l) => slipLine.can('drop', l.status));
  const chosen = picked ?? waiting[0]?.id;
  const loaded = decision === 'void' || info.isSuccess;
  // The chosen line's radio (or the code field, voiding) takes the focus once there is something to focus.
  const formRef = useOpeningFocus('input[type="radio"]:checked, input', loaded);

  const title = t(`commands.withdrawalSlip.${decision}.title`);
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const code = form.values.code.trim();
    if (decision === 'void')
      return form.send(
        endpoints.withdrawalSlip.void,
        { id: slip.id, code },
        toldThenClose(close, (done) => t('screens.slip.voided', { slipNo: done.slipNo })),
        { via: call },
      );
    const lineId = chosen ?? 0;
    form.send(
      endpoints.withdrawalSlip.drop,
      { id: slip.id, lineId, code },
      toldThenClose(close, (done) => {
        const line = done.lines.find((l) => l.id === lineId);
        return t('screens.slip.dropped', { object: line ? objectName(line) : '', slipNo: done.slipNo });
      }),
      { via: call },
    );
  };

  return (
    <Modal
      title={title}
      description={t(decision === 'void' ? 'screens.slip.voidHint' : 'screens.slip.dropHint', {
        slipNo: slip.slipNo,
        lines: slip.lineCount,
      })}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {unbound && <UnboundNotice close={() => close()} />}
        {decision === 'drop' && (
          <fieldset className="field slip-pick">
            <legend>{t('screens.slip.pickLine')}</legend>
            {waiting.map((l) => (
              <label key={l.id} className="check">
                <input type="radio" name="line" checked={chosen === l.id} onChange={() => setPicked(l.id)} />
                <span className="mono">
                  #{l.lineNo} {objectName(l)}
                </span>
                <span className="muted">
                  {l.beneficiaryName} · {money(l.amount)} {slip.currency}
                </span>
              </label>
            ))}
            {form.errors.lineId && (
              <p className="field-error" role="alert">
                {form.errors.lineId}
              </p>
            )}
          </fieldset>
        )}
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={title}
          tone="danger"
          endpoint={decision === 'void' ? endpoints.withdrawalSlip.void : endpoints.withdrawalSlip.drop}
        />
      </form>
    </Modal>
  );
}
