import { useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { refund } from '../../../contract/machines.ts';
import { type Translate, useT } from '../../lib/useT.ts';
import type { Column } from '../../ui/DataTable.tsx';
import { useMerchantList } from '../../ui/MerchantPicker.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { Money } from '../wallet/money.tsx';

type Refund = Contexts['refund'];

const c = columnsOf<Refund>('screens.refund');

function columnsFor(platform: boolean, t: Translate): Column<Refund>[] {
  return [
    c.time('createdAt', '165px', { sortable: false }),
    c.text('refundNo', '225px', { sortable: false }),
    c.text('orderNo', '225px', { sortable: false }),
    ...(platform ? [c.text('merchantCode', '100px', { sortable: false })] : []),
    c.money('amount', '110px', { cell: (r) => <Money value={r.amount} />, sortable: false }),
    c.of('status', (r) => stateLabel(t, refund, r.status), { width: '140px', sortable: false }),
    c.text('accountNumber', '150px', { sortable: false }),
    c.text('reason', 'minmax(160px, 2fr)', { sortable: false }),
  ];
}

/**
 * Refunds, newest first: the platform sees every merchant's (or the one picked), a merchant user its own.
 * A refund is asked from its pay-in (`f` on a paid order); here they are followed and, while waiting for
 * a second person, withdrawn.
 */
export default function RefundScreen() {
  const t = useT();
  const { platform, toInput, picker } = useMerchantList();
  const columns = useMemo(() => columnsFor(platform, t), [platform, t]);
  return (
    <ListScreen
      id="refunds"
      endpoint={endpoints.refund.list}
      context="refund"
      hint="screens.refund.hint"
      columns={columns}
      toInput={toInput}
      paging="cursor"
      detailTitle={(r) => r.refundNo}
      detail={(r) => (
        <dl className="facts">
          <dt>{t('screens.refund.merchantRefundNo')}</dt>
          <dd className="mono">{r.merchantRefundNo}</dd>
          <dt>{t('screens.refund.account')}</dt>
          <dd>
            {r.accountName} · <span className="mono">{r.accountNumber}</span> · {r.ifsc}
          </dd>
          <dt>{t('screens.refund.payout')}</dt>
          <dd className="mono">{r.payoutNo ? `${r.payoutNo} (${r.payoutStatus})` : '—'}</dd>
          <dt>{t('screens.refund.utr')}</dt>
          <dd className="mono">{r.utr ?? '—'}</dd>
          {r.failureReason && (
            <>
              <dt>{t('screens.refund.failureReason')}</dt>
              <dd>{r.failureReason}</dd>
            </>
          )}
          {r.approvalId !== null && (
            <>
              <dt>{t('screens.refund.approval')}</dt>
              <dd>#{r.approvalId}</dd>
            </>
          )}
        </dl>
      )}
      toolbarStart={picker}
    />
  );
}
