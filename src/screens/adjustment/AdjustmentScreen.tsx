import { useStore } from '@nanostores/react';
import { useCallback, useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatTime } from '../../lib/format.ts';
import { $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { Page } from '../Page.tsx';
import { Money } from '../wallet/money.tsx';
import '../wallet/wallet.css';

type Adjustment = Contexts['balanceAdjustment'];
type Translate = ReturnType<typeof useT>;

function columnsFor(platform: boolean, t: Translate): Column<Adjustment>[] {
  return [
    {
      id: 'createdAt',
      header: 'screens.adjustment.createdAt',
      value: (r) => r.createdAt,
      cell: (r) => formatTime(r.createdAt),
      width: '165px',
    },
    ...(platform
      ? [
          {
            id: 'merchant',
            header: 'screens.adjustment.merchant',
            value: (r: Adjustment) => `${r.merchantCode} ${r.merchantName}`,
            cell: (r: Adjustment) => (
              <span>
                <code>{r.merchantCode}</code> {r.merchantName}
              </span>
            ),
            width: 'minmax(150px, 1.2fr)',
          },
        ]
      : []),
    {
      id: 'wallet',
      header: 'screens.adjustment.wallet',
      value: (r) => t(`screens.wallet.accounts.${r.wallet}`),
      width: 'minmax(120px, 0.8fr)',
    },
    {
      id: 'amount',
      header: 'screens.adjustment.amount',
      value: (r) => Number(r.amount),
      cell: (r) => <Money value={r.amount} signed />,
      width: '110px',
    },
    { id: 'currency', header: 'screens.adjustment.currency', value: (r) => r.currency, width: '80px' },
    {
      id: 'reason',
      header: 'screens.adjustment.reason',
      value: (r) => r.reason,
      width: 'minmax(180px, 2fr)',
    },
    ...(platform
      ? [
          {
            id: 'requestedBy',
            header: 'screens.adjustment.requestedBy',
            value: (r: Adjustment) => r.requestedBy ?? '',
            width: '120px',
          },
          {
            id: 'approvedBy',
            header: 'screens.adjustment.approvedBy',
            value: (r: Adjustment) => r.approvedBy ?? '—',
            width: '120px',
          },
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
  const user = useStore($user);
  const platform = user?.kind === 'platform';
  const [merchantId, setMerchantId] = useMerchantParam();
  const columns = useMemo(() => columnsFor(platform, t), [platform, t]);
  const toInput = useCallback(
    () => ({ merchantId: platform ? merchantId : undefined }),
    [platform, merchantId],
  );
  return (
    <Page
      title={t('commands.balanceAdjustment.list.title')}
      actions={<CommandButton id="balanceAdjustment.create" primary />}
    >
      <p className="muted">{t('screens.adjustment.hint')}</p>
      <DataTable
        id="balanceAdjustments"
        label={t('commands.balanceAdjustment.list.title')}
        endpoint={endpoints.balanceAdjustment.list}
        context="balanceAdjustment"
        columns={columns}
        toInput={toInput}
        paging="cursor"
        rowKey={(r) => String(r.id)}
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
        toolbarStart={platform && <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
      />
    </Page>
  );
}
