import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { formatClock } from '../../lib/format.ts';
import { setMoneySession, useMoneySessionEnd } from '../../lib/moneySession.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';

/**
 * The money session (docs/SECURITY.md): one Google code, and for a few minutes the decisions on what
 * waits in a queue (settlements, approvals, recharges, an order's mark or supplement, statement lines,
 * a slip's lines) need no code each. Open, it says until when, ends at once, or is renewed by a new code.
 */
export default function MoneySessionDialog({ close }: { close: (result?: unknown) => void }) {
  const t = useT();
  const until = useMoneySessionEnd();
  const formRef = useOpeningFocus();
  const form = useForm({ code: '' });
  const { unbound, call } = useCodeConfirmed(form);

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    form.send(
      endpoints.auth.moneySessionOpen,
      { code: form.values.code.trim() },
      (opened) => {
        setMoneySession(opened.until);
        toast('success', t('moneySession.opened', { time: formatClock(opened.until) }));
        close(true);
      },
      { blankIsMissing: true, via: call },
    );
  };
  const end = () =>
    void form.submit(async () => {
      await api(endpoints.auth.moneySessionEnd, {});
      setMoneySession(null);
      toast('success', t('moneySession.ended'));
      close(true);
    });

  return (
    <Modal title={t('commands.auth.moneySession.title')} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {unbound && <UnboundNotice close={() => close()} />}
        <p className="muted">{t('moneySession.explain')}</p>
        {until !== null && (
          <p className="notice" role="status">
            {t('moneySession.openUntil', { time: formatClock(until) })}{' '}
            <button type="button" className="button" onClick={end} disabled={form.busy}>
              {t('moneySession.endNow')}
            </button>
          </p>
        )}
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={t(until !== null ? 'moneySession.renew' : 'moneySession.open')}
        />
      </form>
    </Modal>
  );
}
