import type { Column } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';

/** The status column of a holder or a holder's number: active or disabled, in the holders' words. */
export function statusColumn<R extends { status: 'active' | 'disabled' }>(): Column<R> {
  return columnsOf<R>('screens.receiving').badge(
    'status',
    (r) => (r.status === 'active' ? 'ok' : 'muted'),
    'holderStatuses',
    '90px',
  );
}
