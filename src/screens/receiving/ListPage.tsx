import type { ContextName } from '../../../commands/index.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type DataTableProps } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';

/**
 * A receiving list screen (holders, numbers, bindings): titled by its context's list command, with that
 * context's create button over the page-numbered table of its rows keyed by id.
 */
export function ListPage<C extends ContextName>(
  table: Omit<DataTableProps<C>, 'label' | 'paging' | 'rowKey'>,
) {
  const tr = useT();
  const title = tr(`commands.${table.context}.list.title`);
  return (
    <Page title={title} actions={<CommandButton id={`${table.context}.create`} primary />}>
      <DataTable<C> {...table} label={title} paging="page" rowKey={(r) => String((r as { id: number }).id)} />
    </Page>
  );
}

/** The status column of a holder or a holder's number: active or disabled, in the holders' words. */
export function statusColumn<R extends { status: 'active' | 'disabled' }>(): Column<R> {
  return {
    id: 'status',
    header: 'screens.receiving.status',
    value: (r) => r.status,
    cell: (r) => (
      <Badge tone={r.status === 'active' ? 'ok' : 'muted'}>
        {t(`screens.receiving.holderStatuses.${r.status}`)}
      </Badge>
    ),
    width: '90px',
    sortable: true,
  };
}
