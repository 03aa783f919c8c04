import { endpoints, type Output } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, Field, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';

/** Today on this computer's calendar, `YYYY-MM-DD` (the server refuses a day after the business today). */
function localToday(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * "Run settlement now": releases every pending T+N line due on or before the chosen business day (today
 * or before) into the merchants' available balances, one merchant at a time. Money moves: the user's
 * Google code. A day that already ran releases nothing more.
 */
export default function RunDialog({ close }: { close: (result?: unknown) => void }) {
  const t = useT();
  // The day is today unless changed (Shift+Tab): the code is what there is to type.
  const formRef = useOpeningFocus('input[autocomplete="one-time-code"]');
  const form = useForm({ day: localToday(), code: '' });
  const { unbound, call } = useCodeConfirmed(form);
  const endpoint = endpoints.settlementtnLog.run;
  const title = t('commands.settlementtnLog.run.title');

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = { day: form.values.day, code: form.values.code.trim() };
    const ran = (run: Output<typeof endpoint>) => {
      toast(
        run.outcome === 'succeeded' ? 'success' : 'warning',
        t('screens.tn.ran', {
          id: run.id,
          day: run.day,
          merchants: run.merchants,
          lines: thousands(run.lines),
          amount: thousands(run.amountReleased),
          outcome: t(`screens.tn.outcomes.${run.outcome}`),
        }),
      );
      close(true);
    };
    form.send(endpoint, input, ran, { blankIsMissing: true, via: call });
  };

  return (
    <Modal title={title} description={t('screens.tn.runText')} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {unbound && <UnboundNotice close={() => close()} />}
        <Field
          label={t('screens.tn.day')}
          type="date"
          {...form.field('day')}
          hint={t('screens.tn.dayHint')}
          required
        />
        <CodeAndActions form={form} onCancel={() => close()} submitLabel={title} />
      </form>
    </Modal>
  );
}
