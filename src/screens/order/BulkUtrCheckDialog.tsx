import { endpoints } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { payin } from '../../../contract/machines.ts';
import { api } from '../../lib/api.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { BulkDialog, bulkQuiet } from '../../ui/BulkDialog.tsx';
import { validate } from '../../ui/form.tsx';
import { money, type Payin } from './parts.tsx';

const awaiting = (o: Payin) => payin.can('utrCheck', o.status);

/**
 * UTR check for several orders at once: one UTR per order (the customer's word, pasted in), each
 * checked at that order's channel; every row says whether it was found, for how much, and whether it
 * belongs to that order and is unused, which is when a supplement will go through.
 */
export default function BulkUtrCheckDialog({
  rows,
  close,
}: {
  rows: Payin[];
  close: (result?: unknown) => void;
}) {
  const tr = useT();
  const byNo = new Map(rows.map((r) => [r.orderNo, r]));
  return (
    <BulkDialog
      title={tr('commands.merchantOrder.bulkUtrCheck.title')}
      intro={tr('screens.order.bulkUtr.intro')}
      runLabel={tr('screens.order.bulkUtr.run', { n: rows.filter(awaiting).length })}
      rows={rows.map((r) => ({
        key: r.orderNo,
        label: r.orderNo,
        detail: `${r.merchantOrderNo} · ${money(r.amount)} · ${stateLabel(t, payin, r.status)}`,
        ...(awaiting(r) ? {} : { skip: t('screens.order.bulkUtr.notAwaiting') }),
      }))}
      input={{
        label: tr('screens.order.utr'),
        initial: (orderNo) => byNo.get(orderNo)?.utr ?? '',
        // The endpoint's own schema, so the preview refuses exactly what the server would.
        check: (value) => {
          const valid = validate(endpoints.merchantOrder.utrCheck.input, { utr: value });
          return valid.ok ? null : (valid.errors.utr ?? t('validation.utr'));
        },
      }}
      run={async (orderNo, utr) => {
        const order = byNo.get(orderNo);
        if (!order) throw new Error(orderNo);
        const r = await api(endpoints.merchantOrder.utrCheck, { utr, id: order.id }, { quiet: bulkQuiet });
        if (!r.found)
          return {
            ok: false,
            text: r.usedBy
              ? t('screens.order.bulkUtr.usedBy', { orderNo: r.usedBy })
              : t('screens.order.utrCheck.notFound'),
          };
        const found = t('screens.order.bulkUtr.found', {
          amount: money(r.amount),
          account: r.account ?? '—',
        });
        if (r.usedBy)
          return {
            ok: false,
            text: `${found} · ${t('screens.order.bulkUtr.usedBy', { orderNo: r.usedBy })}`,
          };
        return {
          ok: !!r.matchesOrder,
          text: `${found} · ${t(r.matchesOrder ? 'screens.order.bulkUtr.matches' : 'screens.order.bulkUtr.otherOrder')}`,
        };
      }}
      close={close}
    />
  );
}
