import { useState } from 'react';
import { endpoints, errno } from '../../../contract/index.ts';
import { formatMinor, toMinor } from '../../../contract/money.ts';
import { ApiError, api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { offerUndo } from '../../lib/undo.ts';
import { useT } from '../../lib/useT.ts';
import { FormActions, ReasonField, RefusalNote, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import type { Line } from './parts.tsx';
import './statement.css';

const refusals = [errno.badRequest, errno.notFound, errno.conflict, errno.invalid];

/**
 * Sets open statement lines aside with a reason (a refund, the bank's charges, a transfer of our own):
 * one line, or the checked ones at once. They leave the queue and count as unmatched credits in the
 * reconciliation.
 */
export default function DismissDialog({
  lines,
  close,
}: {
  lines: readonly Line[];
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const formRef = useOpeningFocus();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const one = lines.length === 1 ? lines[0] : undefined;
  const sum = lines.reduce((s, l) => s + toMinor(l.amount), 0);

  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    setRefusal(null);
    const input = one ? { lineId: one.id, reason } : { lineIds: lines.map((l) => l.id), reason };
    const checked = validate(endpoints.statement.dismiss.input, input);
    if (!checked.ok) return setError(checked.errors.reason ?? Object.values(checked.errors)[0]);
    setBusy(true);
    try {
      const done = await api(endpoints.statement.dismiss, checked.data, { quiet: refusals });
      // Undone by reopening the lines: matched again, a payment waiting for a person (docs/STATEMENTS.md).
      const lineIds = lines.map((l) => l.id);
      offerUndo(t('statement.dismiss.done', { n: done.dismissed }), () =>
        api(endpoints.statement.reopen, { lineIds }),
      );
      close(true);
    } catch (failure) {
      if (!(failure instanceof ApiError)) throw failure;
      const fields = failure.fields;
      if (fields.reason) setError(fields.reason);
      else setRefusal(failure.message);
    } finally {
      setBusy(false);
    }
  };

  const title = t(one ? 'commands.statement.dismiss.title' : 'commands.statement.dismissChecked.title');
  return (
    <Modal title={title} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <p className="notice" role="note">
          {one
            ? t('statement.dismiss.one', {
                amount: thousands(one.amount),
                day: one.day,
                account: one.accountLabel,
              })
            : t('statement.dismiss.many', { n: lines.length, amount: thousands(formatMinor(sum)) })}
        </p>
        <RefusalNote refusal={refusal} />
        <ReasonField
          label={t('statement.dismiss.reason')}
          value={reason}
          onValue={(v) => {
            setReason(v);
            setError(undefined);
          }}
          error={error}
          hint={t('statement.dismiss.reasonHint')}
        />
        <FormActions
          busy={busy || lines.length === 0}
          onCancel={() => close()}
          submitLabel={title}
          tone="danger"
        />
      </form>
    </Modal>
  );
}
