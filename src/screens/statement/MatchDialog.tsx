import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { endpoints, errno } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { payin } from '../../../contract/machines.ts';
import { ApiError, api } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { codeFor } from '../../lib/moneySession.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { Fact } from '../../ui/Fact.tsx';
import {
  CodeAndActions,
  ReasonField,
  RefusalNote,
  useForm,
  VerbatimField,
  validate,
} from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { Amount, kindLabel, kindOf, type Line } from './parts.tsx';
import './statement.css';

/** Refusals said inside the dialog: amounts differ, the order cannot take it, the UTR is used. */
const refusals = [
  errno.badRequest,
  errno.notFound,
  errno.conflict,
  errno.invalid,
  errno.utrUsed,
  errno.utrMismatch,
];
/** Orders are looked up over the console's reach (the order lists go back 60 days). */
const lookbackMs = 60 * 86_400_000;

/**
 * Pays an order with an open statement credit: the finance user types the order's number (the system's
 * or the merchant's), sees the order found with its amount and state, gives a reason and the Google code,
 * and confirms (Enter): a money decision (docs/SECURITY.md, the `statement.pay` door). The server refuses
 * a different amount, an order that cannot be supplemented and a UTR already used; beyond the day's limit
 * of maker–checker the payment waits in Approvals for a second person.
 */
export default function MatchDialog({ line, close }: { line: Line; close: (result?: unknown) => void }) {
  const t = useT();
  const formRef = useOpeningFocus();
  const [number, setNumber] = useState(line.candidateNo ?? '');
  const [asked, setAsked] = useState(number.trim());
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [fieldError, setFieldError] = useState<string | undefined>();
  const form = useForm({ reason: '', code: '' });
  const { unbound, call } = useCodeConfirmed(form, refusals, () => close(true));
  useEffect(() => {
    const timer = window.setTimeout(() => setAsked(number.trim()), 250);
    return () => window.clearTimeout(timer);
  }, [number]);

  const lookup = (q: string) => {
    const now = Date.now();
    return api(endpoints.merchantOrder.list, {
      q,
      from: new Date(now - lookbackMs).toISOString(),
      to: new Date(now + 60_000).toISOString(),
      pageSize: 10,
    });
  };
  const found = useQuery({
    queryKey: ['statement-match-lookup', asked],
    queryFn: () => lookup(asked),
    enabled: asked.length >= 3,
    staleTime: 10_000,
  });
  /** The order the number names: the one whose number it is, or the only one found. */
  const pick = (list: NonNullable<typeof found.data>['list'], q: string) =>
    list.find((o) => o.orderNo === q || o.merchantOrderNo === q) ?? (list.length === 1 ? list[0] : undefined);
  const order = found.data && asked === number.trim() ? pick(found.data.list, asked) : undefined;

  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    const q = number.trim();
    setRefusal(null);
    if (q === '') return setFieldError(t('validation.required'));
    setBusy(true);
    try {
      const target = order ?? pick((await lookup(q)).list, q);
      if (!target) return setFieldError(t('statement.match.notFound', { no: q }));
      const input = {
        lineId: line.id,
        orderId: target.id,
        reason: form.values.reason,
        code: codeFor(endpoints.statement.match, form.values.code),
      };
      const valid = validate(endpoints.statement.match.input, input);
      if (!valid.ok) return form.setErrors(valid.errors);
      const done = await call(endpoints.statement.match, input);
      if (!done) return;
      toast('success', t('statement.match.done', { no: done.payinNo ?? target.orderNo }));
      close(true);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setRefusal(error.message);
    } finally {
      setBusy(false);
    }
  };

  const kind = kindOf(line);
  const differs = order && order.amount !== line.amount;
  return (
    <Modal title={t('commands.statement.match.title')} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <dl className="statement-line-facts">
          <Fact label={t('statement.screen.columns.amount')}>
            <Amount line={line} />
          </Fact>
          <Fact label={t('statement.screen.columns.utr')} className="mono">
            {line.utr ?? '—'}
          </Fact>
          <Fact label={t('statement.screen.columns.day')}>{line.day}</Fact>
          <Fact label={t('statement.screen.columns.account')}>{line.accountLabel}</Fact>
          {kind && <Fact label={t('statement.screen.columns.kind')}>{kindLabel(kind)}</Fact>}
          <Fact label={t('statement.screen.columns.narration')} wide>
            {line.narration}
          </Fact>
        </dl>
        <RefusalNote refusal={refusal} />
        <VerbatimField
          label={t('statement.match.orderNo')}
          value={number}
          onValue={(v) => {
            setNumber(v);
            setFieldError(undefined);
            setRefusal(null);
          }}
          error={fieldError}
          hint={t('statement.match.orderNoHint')}
          maxLength={64}
          required
        />
        <div className="statement-found" role="status" aria-live="polite">
          {order ? (
            <p data-testid="match-order">
              <span className="mono">{order.orderNo}</span>
              {' · '}
              {order.merchantCode}
              {' · '}
              <span className={`money${differs ? ' statement-differs' : ''}`}>{thousands(order.amount)}</span>
              {' · '}
              {stateLabel(t, payin, order.status)}
              {differs && (
                <span className="statement-differs">
                  {' · '}
                  {t('statement.match.amountDiffers')}
                </span>
              )}
            </p>
          ) : found.data && asked === number.trim() && asked.length >= 3 ? (
            <p className="muted">
              {found.data.list.length === 0
                ? t('statement.match.noneFound')
                : t('statement.match.several', { n: found.data.list.length })}
            </p>
          ) : null}
        </div>
        {unbound && <UnboundNotice close={() => close()} />}
        <ReasonField
          label={t('statement.match.reason')}
          {...form.field('reason')}
          hint={t('statement.match.reasonHint')}
        />
        <CodeAndActions
          endpoint={endpoints.statement.match}
          form={{ ...form, busy: busy || form.busy }}
          onCancel={() => close()}
          submitLabel={t('commands.statement.match.title')}
        />
      </form>
    </Modal>
  );
}
