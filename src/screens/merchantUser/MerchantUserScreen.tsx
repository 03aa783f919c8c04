import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import type { Column } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { userColumns, userFilters } from '../admin/userColumns.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';

type User = Contexts['merchantUser'];

const c = columnsOf<User>('screens.admin');

const columns: Column<User>[] = [
  c.text('username', 'minmax(120px, 1fr)'),
  c.text('nickname', 'minmax(90px, 0.8fr)'),
  c.text('email', 'minmax(170px, 1.5fr)', { sortable: false }),
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
    <ListScreen
      id="merchant-users"
      endpoint={endpoints.merchantUser.list}
      context="merchantUser"
      columns={columns}
      filters={userFilters(t)}
      toolbarStart={<MerchantPicker value={merchantId} onValue={choose} />}
      input={merchantId === undefined ? null : { merchantId }}
      blockedText={t('screens.merchantUser.chooseMerchant')}
      paging="cursor"
      detailTitle={(r) => r.username}
    />
  );
}
