import { useStore } from '@nanostores/react';
import { useCallback, useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { recharge } from '../../../contract/machines.ts';
import { formatTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { type Column, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { amountColumn, columnsOf, hidden, merchantColumn, merchantWidthTight } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import '../wallet/wallet.css';

type Recharge = Contexts['recharge'];

const rechargeTone: Record<Recharge['status'], Tone> = {
  pending: 'warn',
  confirmed: 'ok',
  rejected: 'bad',
};

/** Minutes in the list; the seconds are in the tooltip. */
function Time({ value }: { value: string }) {
  return (
    <time dateTime={value} title={formatTime(value)}>
      {formatTime(value, false)}
    </time>
  );
}

const c = columnsOf<Recharge>('screens.recharge');

function columnsFor(platform: boolean): Column<Recharge>[] {
  return [
    c.text('id', '64px'),
    c.time('createdAt', '150px', { cell: (r) => <Time value={r.createdAt} /> }),
    ...merchantColumn<Recharge>('screens.recharge.merchant', platform, merchantWidthTight),
    amountColumn<Recharge>('screens.recharge.amount'),
    c.text('currency', '70px', hidden),
    c.text('reference', 'minmax(140px, 1.3fr)', { sortable: false }),
    c.text('status', '100px', {
      cell: (r) => <Badge tone={rechargeTone[r.status]}>{stateLabel(t, recharge, r.status)}</Badge>,
    }),
    c.time('decidedAt', '150px', {
      cell: (r) => (r.decidedAt ? <Time value={r.decidedAt} /> : null),
      sortable: false,
    }),
    c.text('note', 'minmax(120px, 1fr)', hidden),
    c.text('rejectReason', 'minmax(120px, 1fr)', hidden),
  ];
}

/**
 * Recharge records. Merchant users see their own and report new ones; platform users see every
 * merchant's (or one chosen) and confirm or reject the pending ones: the recharge approval.
 */
export default function RechargeScreen() {
  const t = useT();
  const user = useStore($user);
  const platform = user?.kind === 'platform';
  const [merchantId, setMerchantId] = useMerchantParam();
  const columns = useMemo(() => columnsFor(platform), [platform]);
  const filters: Filter[] = [statusFilter(t, recharge, { label: t('screens.recharge.status') })];
  const toInput = useCallback(
    (f: Record<string, string>) => ({ status: f.status, merchantId: platform ? merchantId : undefined }),
    [platform, merchantId],
  );
  return (
    <ListScreen
      id={platform ? 'rechargePlatform' : 'recharge'}
      endpoint={endpoints.merchantRechargeLog.list}
      context="recharge"
      create
      above={
        platform && (
          <div className="merchant-bar">
            <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />
          </div>
        )
      }
      columns={columns}
      filters={filters}
      toInput={toInput}
      paging="page"
      detailTitle={(r) => t('screens.recharge.detailTitle', { id: r.id, reference: r.reference })}
    />
  );
}
