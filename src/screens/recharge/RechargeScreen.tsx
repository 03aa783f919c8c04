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
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { amountColumn, merchantColumn } from '../columns.tsx';
import { Page } from '../Page.tsx';
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

function columnsFor(platform: boolean): Column<Recharge>[] {
  return [
    { id: 'id', header: 'screens.recharge.id', value: (r) => r.id, width: '64px', sortable: true },
    {
      id: 'createdAt',
      header: 'screens.recharge.createdAt',
      value: (r) => r.createdAt,
      cell: (r) => <Time value={r.createdAt} />,
      width: '150px',
      sortable: true,
    },
    ...merchantColumn<Recharge>('screens.recharge.merchant', platform),
    amountColumn<Recharge>('screens.recharge.amount'),
    {
      id: 'currency',
      header: 'screens.recharge.currency',
      value: (r) => r.currency,
      width: '70px',
      hiddenByDefault: true,
    },
    {
      id: 'reference',
      header: 'screens.recharge.reference',
      value: (r) => r.reference,
      width: 'minmax(140px, 1.3fr)',
    },
    {
      id: 'status',
      header: 'screens.recharge.status',
      value: (r) => r.status,
      cell: (r) => <Badge tone={rechargeTone[r.status]}>{stateLabel(t, recharge, r.status)}</Badge>,
      width: '100px',
      sortable: true,
    },
    {
      id: 'decidedAt',
      header: 'screens.recharge.decidedAt',
      value: (r) => r.decidedAt ?? '',
      cell: (r) => (r.decidedAt ? <Time value={r.decidedAt} /> : null),
      width: '150px',
    },
    {
      id: 'note',
      header: 'screens.recharge.note',
      value: (r) => r.note,
      width: 'minmax(120px, 1fr)',
      hiddenByDefault: true,
    },
    {
      id: 'rejectReason',
      header: 'screens.recharge.rejectReason',
      value: (r) => r.rejectReason ?? '',
      width: 'minmax(120px, 1fr)',
      hiddenByDefault: true,
    },
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
    <Page
      title={t('commands.merchantRechargeLog.list.title')}
      actions={<CommandButton id="merchantRechargeLog.create" primary />}
    >
      {platform && (
        <div className="merchant-bar">
          <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />
        </div>
      )}
      <DataTable
        id={platform ? 'rechargePlatform' : 'recharge'}
        label={t('commands.merchantRechargeLog.list.title')}
        endpoint={endpoints.merchantRechargeLog.list}
        context="recharge"
        columns={columns}
        filters={filters}
        toInput={toInput}
        paging="page"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => t('screens.recharge.detailTitle', { id: r.id, reference: r.reference })}
      />
    </Page>
  );
}
