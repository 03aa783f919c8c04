import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { userColumns, userFilters } from '../admin/userColumns.tsx';
import { Page } from '../Page.tsx';

type User = Contexts['merchantUser'];

const columns: Column<User>[] = [
  {
    id: 'username',
    header: 'screens.admin.username',
    value: (r) => r.username,
    width: 'minmax(120px, 1fr)',
    sortable: true,
  },
  {
    id: 'nickname',
    header: 'screens.admin.nickname',
    value: (r) => r.nickname,
    width: 'minmax(90px, 0.8fr)',
    sortable: true,
  },
  {
    id: 'email',
    header: 'screens.admin.email',
    value: (r) => r.email,
    width: 'minmax(170px, 1.5fr)',
  },
  ...userColumns<User>(),
];

/**
 * One merchant's users as the platform manages them (the merchant chosen here or from its row, `u`):
 * row actions disable or enable them and reset their password or Google key, each told by e-mail.
 */
export default function MerchantUserScreen() {
  const t = useT();
  const [merchantId, choose] = useMerchantParam();
  return (
    <Page title={t('commands.merchantUser.list.title')}>
      <DataTable
        id="merchant-users"
        label={t('commands.merchantUser.list.title')}
        endpoint={endpoints.merchantUser.list}
        context="merchantUser"
        columns={columns}
        filters={userFilters(t)}
        toolbarStart={<MerchantPicker value={merchantId} onValue={choose} />}
        input={merchantId === undefined ? null : { merchantId }}
        blockedText={t('screens.merchantUser.chooseMerchant')}
        paging="cursor"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => r.username}
      />
    </Page>
  );
}
