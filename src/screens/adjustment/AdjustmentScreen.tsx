import { useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { type Translate, useT } from '../../lib/useT.ts';
import type { Column } from '../../ui/DataTable.tsx';
import { useMerchantList } from '../../ui/MerchantPicker.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { Money } from '../wallet/money.tsx';
import '../wallet/wallet.css';

type Adjustment = Contexts['balanceAdjustment'];

const c = columnsOf<Adjustment>('screens.adjustment');

function columnsFor(platform: boolean, t: Translate): Column<Adjustment>[] {
  return [
    c.time('createdAt', '165px', { sortable: false }),
    ...(platform
      ? [
          c.of('merchant', (r) => `${r.merchantCode} ${r.merchantName}`, {
            cell: (r) => (
              <span>
                <code>{r.merchantCode}</code> {r.merchantName}
              </span>
            ),
            width: 'minmax(150px, 1.2fr)',
            sortable: false,
          }),
        ]
      : []),
    c.of('wallet', (r) => t(`screens.wallet.accounts.${r.wallet}`), {
      width: 'minmax(120px, 0.8fr)',
      sortable: false,
    }),
    c.money('amount', '110px', { cell: (r) => <Money value={r.amount} signed />, sortable: false }),
    c.text('currency', '80px', { sortable: false }),
    c.text('reason', 'minmax(180px, 2fr)', { sortable: false }),
    ...(platform
      ? [
          c.text('requestedBy', '120px', { sortable: false }),
          c.of('approvedBy', (r) => r.approvedBy ?? '—', { width: '120px', sortable: false }),
        ]
      : []),
  ];
}

/**
 * Balance adjustments, newest first: the platform sees every merchant's (or the one picked), a merchant
 * user its own. A new one (Shift-J) is credited or debited at once, or waits for a second person above
 * the maker–checker threshold (then it appears here when approved).
 */
export default function AdjustmentScreen() {
  const t = useT();
  const { platform, toInput, picker } = useMerchantList();
  const columns = useMemo(() => columnsFor(platform, t), [platform, t]);
  return (
    <ListScreen
      id="balanceAdjustments"
      endpoint={endpoints.balanceAdjustment.list}
      context="balanceAdjustment"
      create
      hint="screens.adjustment.hint"
      columns={columns}
      toInput={toInput}
      paging="cursor"
      detailTitle={(r) => t('screens.adjustment.rowTitle', { id: r.id, merchant: r.merchantCode })}
      detail={(r) => (
        <dl className="facts">
          <dt>{t('screens.adjustment.reason')}</dt>
          <dd>{r.reason}</dd>
          {r.approvalId !== null && (
            <>
              <dt>{t('screens.adjustment.approval')}</dt>
              <dd>#{r.approvalId}</dd>
            </>
          )}
        </dl>
      )}
      toolbarStart={picker}
    />
  );
}
