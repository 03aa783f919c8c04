import { endpoints, type Output } from '../../../contract/index.ts';
import { formatMinor, toMinor } from '../../../contract/money.ts';
import { thousands } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, ReasonField, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { Amount, type Import, type Line } from './parts.tsx';
import './statement.css';

/** Lines shown by name before "and n more". */
const shownLines = 8;

type Props = { close: (result?: unknown) => void } & (
  | { lines: readonly Line[]; import?: undefined }
  | { import: Pick<Import, 'id' | 'fileName' | 'accountLabel' | 'wouldPay'>; lines?: undefined }
);

/**
 * Posting statement lines (docs/SECURITY.md, the `statement.pay` door): a person's statement pays only
 * on a finance user's decision. The dialog says what the lines pay (each ready or proposed credit its
 * order, a ready debit its slip line), asks a reason and the Google code, and tells the outcome: paid,
 * refused, and what waits in Approvals beyond the day's limit of maker–checker.
 */
export default function PostDialog(props: Props) {
  const { close } = props;
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ reason: '', code: '' });
  const { values } = form;
  const { unbound, call } = useCodeConfirmed(form);
  const lines = props.lines ?? [];
  const count = props.import ? props.import.wouldPay.count : lines.length;
  const sum = props.import
    ? props.import.wouldPay.sum
    : formatMinor(lines.filter((l) => l.direction === 'credit').reduce((s, l) => s + toMinor(l.amount), 0));

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      ...(props.import ? { importId: props.import.id } : { lineIds: lines.map((l) => l.id) }),
      reason: values.reason,
      code: values.code.trim(),
    };
    const posted = (done: Output<typeof endpoints.statement.accept>) => {
      const said = [t('statement.post.done', { n: done.matched })];
      if (done.refused.length) said.push(t('statement.post.refused', { n: done.refused.length }));
      if (done.approval)
        said.push(
          t('statement.post.waiting', { n: done.approval.lines, amount: thousands(done.approval.amount) }),
        );
      toast(done.refused.length || done.approval ? 'warning' : 'success', said.join(' · '));
      close(true);
    };
    form.send(endpoints.statement.accept, input, posted, { via: call });
  };

  const title = t(props.import ? 'commands.statement.post.title' : 'commands.statement.accept.title');
  return (
    <Modal title={title} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <p className="notice" role="note">
          {t('statement.post.intro', { n: thousands(count), sum: thousands(sum) })}
        </p>
        {props.import ? (
          <p className="muted">
            {props.import.accountLabel} · {props.import.fileName}
          </p>
        ) : (
          <table className="statement-post-lines" aria-label={t('statement.post.lines')}>
            <tbody>
              {lines.slice(0, shownLines).map((l) => (
                <tr key={l.id}>
                  <td>{l.day}</td>
                  <td>
                    <Amount line={l} />
                  </td>
                  <td className="mono">{l.candidateNo ?? l.candidateSlipNo ?? '—'}</td>
                  <td className="mono">{l.utr ?? ''}</td>
                </tr>
              ))}
              {lines.length > shownLines && (
                <tr>
                  <td colSpan={4} className="muted">
                    {t('statement.post.more', { n: lines.length - shownLines })}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        )}
        {unbound && <UnboundNotice close={() => close()} />}
        <ReasonField
          label={t('statement.post.reason')}
          {...form.field('reason')}
          hint={t('statement.post.reasonHint')}
        />
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={title}
          endpoint={endpoints.statement.accept}
        />
      </form>
    </Modal>
  );
}
