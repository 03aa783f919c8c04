import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { slipFormats } from '../../../contract/endpoints/slip.ts';
import { endpoints, errno, type Output } from '../../../contract/index.ts';
import { formatMinor, toMinor } from '../../../contract/money.ts';
import { api, isApiError } from '../../lib/api.ts';
import { thousands } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { useChoices } from '../../ui/choices.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { rowOptions, SelectField, valueOptions } from '../../ui/fields.tsx';
import { CodeAndActions, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { money, TimeCell } from '../order/parts.tsx';
import { saveSlipFile } from './download.ts';
import { formatName, objectName } from './parts.tsx';
import '../../ui/lists.css';
import './slip.css';

type Candidate = Output<typeof endpoints.withdrawalSlip.candidates>['list'][number];
const keyOf = (c: Candidate) => `${c.objectType}:${c.id}`;

/**
 * A new withdrawal slip: the confirmed bank settlements and manual-bank payouts waiting to be sent
 * (oldest first), chosen with checkboxes, a bank's file layout, and the user's Google code. The slip is
 * written and its file downloads at once; a candidate another slip took meanwhile refuses the whole slip.
 */
export default function NewSlipDialog({ close }: { close: (result?: unknown) => void }) {
  const t = useT();
  const formRef = useOpeningFocus('select');
  const form = useForm({ format: slipFormats[0] as string, accountId: '', code: '' });
  const { unbound, call } = useCodeConfirmed(form);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [gone, setGone] = useState(false);
  const candidates = useQuery({
    queryKey: ['slip-candidates'],
    queryFn: ({ signal }) => api(endpoints.withdrawalSlip.candidates, {}, { signal }),
  });
  // The platform's own accounts the bank pays from: only their statements may propose closing the lines.
  const accounts = useChoices(endpoints.receivingAccount.list, { kind: 'public', status: 'active' });
  const list = candidates.data?.list ?? [];
  const picked = list.filter((c) => chosen.has(keyOf(c)));
  const currencies = [...new Set(picked.map((c) => c.currency))];
  const sum = formatMinor(picked.reduce((n, c) => n + toMinor(c.amount), 0));

  const toggle = (key: string) =>
    setChosen((now) => {
      const next = new Set(now);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const all = list.length > 0 && picked.length === list.length;

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      format: form.values.format as (typeof slipFormats)[number],
      accountId: form.values.accountId,
      settlementIds: picked.filter((c) => c.objectType === 'settlement').map((c) => c.id),
      payoutIds: picked.filter((c) => c.objectType === 'payout').map((c) => c.id),
      code: form.values.code.trim(),
    };
    const made = async (slip: Output<typeof endpoints.withdrawalSlip.create>) => {
      toast('success', t('screens.slip.createdToast', { slipNo: slip.slipNo, lines: slip.lineCount }));
      await saveSlipFile(slip);
      close(true);
    };
    form.send(endpoints.withdrawalSlip.create, input, made, {
      via: async (endpoint, checked) => {
        try {
          return await call(endpoint, checked);
        } catch (error) {
          // Taken meanwhile by another slip (or settled): the list is read again, the choice kept for what is left.
          if (!isApiError(error, errno.conflict)) throw error;
          setGone(true);
          await candidates.refetch();
          return undefined;
        }
      },
    });
  };

  // A 422 of a line names it by its place in the request: shown as the object's number.
  const lineError = form.errors.settlementIds ?? form.errors.payoutIds;

  return (
    <Modal
      title={t('commands.withdrawalSlip.create.title')}
      description={t('screens.slip.createHint')}
      onClose={() => close()}
      variant="sheet"
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {unbound && <UnboundNotice close={() => close()} />}
        {gone && (
          <p className="notice" role="alert">
            {t('screens.slip.candidatesChanged')}
          </p>
        )}
        <div className="slip-choice">
          <SelectField
            label={t('screens.slip.format')}
            value={form.values.format}
            onValue={(v) => form.set('format', v)}
            options={valueOptions(slipFormats, formatName)}
            hint={t(`screens.slip.formatHints.${form.values.format}`)}
          />
          <SelectField
            label={t('screens.slip.paidFrom')}
            value={form.values.accountId}
            onValue={(v) => form.set('accountId', v)}
            options={rowOptions(
              t('screens.slip.choosePaidFrom'),
              accounts.data?.list,
              (a) => `${a.bankName} · ${a.accountNumber} · ${a.accountName}`,
            )}
            error={form.errors.accountId}
            hint={t('screens.slip.paidFromHint')}
          />
          <p className="slip-sum" role="status">
            {t('screens.slip.chosen', {
              count: picked.length,
              total: thousands(sum),
              currency: currencies.join(' + '),
            })}
          </p>
        </div>
        <div className="bulk-table-wrap slip-candidates">
          <CandidateTable
            list={list}
            chosen={chosen}
            all={all}
            onAll={() => setChosen(all ? new Set() : new Set(list.map(keyOf)))}
            onToggle={toggle}
          />
          {candidates.isSuccess && list.length === 0 && (
            <p className="muted slip-empty">{t('screens.slip.noCandidates')}</p>
          )}
        </div>
        {candidates.data && candidates.data.total > list.length && (
          <p className="field-hint">
            {t('screens.slip.moreCandidates', { shown: list.length, total: candidates.data.total })}
          </p>
        )}
        {lineError && (
          <p className="field-error" role="alert">
            {lineError}
          </p>
        )}
        <CodeAndActions form={form} onCancel={() => close()} submitLabel={t('screens.slip.createSubmit')} />
      </form>
    </Modal>
  );
}

/** The objects ready for a slip, each with its checkbox, and one to choose them all. */
function CandidateTable({
  list,
  chosen,
  all,
  onAll,
  onToggle,
}: {
  list: readonly Candidate[];
  chosen: ReadonlySet<string>;
  all: boolean;
  onAll: () => void;
  onToggle: (key: string) => void;
}) {
  const t = useT();
  return (
    <table className="bulk-table">
      <thead>
        <tr>
          <th className="check">
            <input
              type="checkbox"
              aria-label={t('screens.slip.chooseAll')}
              checked={all}
              disabled={list.length === 0}
              onChange={onAll}
            />
          </th>
          <th>{t('screens.slip.object')}</th>
          <th>{t('screens.slip.beneficiary')}</th>
          <th className="num">{t('screens.slip.amount')}</th>
          <th>{t('screens.slip.readyAt')}</th>
        </tr>
      </thead>
      <tbody>
        {list.map((c) => {
          const key = keyOf(c);
          return (
            <tr key={key} className={chosen.has(key) ? 'chosen' : undefined}>
              <td className="check">
                <input
                  type="checkbox"
                  aria-label={objectName(c)}
                  checked={chosen.has(key)}
                  onChange={() => onToggle(key)}
                />
              </td>
              <td>
                <div className="mono">{objectName(c)}</div>
                <div className="muted">{c.merchantCode}</div>
              </td>
              <td>
                <div>{c.beneficiaryName}</div>
                <div className="muted mono">
                  {c.accountNumber} · {c.ifsc}
                </div>
              </td>
              <td className="num">
                {money(c.amount)} <span className="muted">{c.currency}</span>
              </td>
              <td>
                <TimeCell value={c.readyAt} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
