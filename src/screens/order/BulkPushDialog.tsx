import { attemptAnswer } from '../../../contract/callbackNotes.ts';
import { endpoints } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { api } from '../../lib/api.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { BulkDialog, bulkQuiet } from '../../ui/BulkDialog.tsx';
import { callbackDue, money, type OrderKind, orderMachines, type Payin, type Payout } from './parts.tsx';

interface Props {
  kind: OrderKind;
  rows: (Payin | Payout)[];
  close: (result?: unknown) => void;
}

/** Re-pushes the merchant callback of every checked order that has one; each row shows the merchant's answer. */
export default function BulkPushDialog({ kind, rows, close }: Props) {
  const tr = useT();
  const push = kind === 'payin' ? endpoints.merchantOrder.push : endpoints.merchantPayout.push;
  const byNo = new Map(rows.map((r) => [r.orderNo, r]));
  const runnable = rows.filter((r) => callbackDue(kind, r.status)).length;
  return (
    <BulkDialog
      title={tr(
        kind === 'payin' ? 'commands.merchantOrder.bulkPush.title' : 'commands.merchantPayout.bulkPush.title',
      )}
      intro={tr('screens.order.bulkPush.intro')}
      runLabel={tr('screens.order.bulkPush.run', { n: runnable })}
      rows={rows.map((r) => ({
        key: r.orderNo,
        label: r.orderNo,
        detail: `${r.merchantOrderNo} · ${money(r.amount)} · ${stateLabel(t, orderMachines[kind], r.status)}`,
        ...(callbackDue(kind, r.status) ? {} : { skip: t('screens.order.bulkPush.noCallback') }),
      }))}
      run={async (orderNo) => {
        const order = byNo.get(orderNo);
        if (!order) throw new Error(orderNo);
        const attempt = await api(push, { id: order.id }, { quiet: bulkQuiet });
        const ok = attempt.httpStatus !== null && attempt.httpStatus >= 200 && attempt.httpStatus < 300;
        return {
          ok,
          text: t('screens.order.bulkPush.answer', {
            status: attempt.httpStatus ?? '—',
            ms: attempt.durationMs,
            answer: attemptAnswer(attempt.httpStatus, attempt.response, t).slice(0, 80),
          }),
        };
      }}
      close={close}
    />
  );
}
