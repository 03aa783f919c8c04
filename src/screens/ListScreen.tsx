import type { ReactNode } from 'react';
import { type ContextName, type Contexts, titleKey } from '../../commands/index.ts';
import { useT } from '../lib/useT.ts';
import { CommandButton } from '../ui/CommandButton.tsx';
import { DataTable, type DataTableFields, type DataTableProps, type RowKeyOf } from '../ui/DataTable.tsx';
import { Page } from './Page.tsx';

export type ListScreenProps<C extends ContextName> = Omit<DataTableFields<C>, 'label'> &
  RowKeyOf<Contexts[C]> & {
    /** The screen's command where it is not the endpoint's namesake (one of several views of it). */
    command?: string;
    /** Shows the list's create command (`<endpoint group>.create`) first in the title row. */
    create?: boolean;
    /** Other commands of the title row. */
    actions?: ReactNode;
    /** Message key of the line under the title that says what the list holds. */
    hint?: string;
    /** Between the title row and the table (a merchant picker, a balance). */
    above?: ReactNode;
    /** Under the table (the screen's own drawer). */
    children?: ReactNode;
  };

/**
 * A list screen, named once by its endpoint: its command shares the endpoint's id (`endpoints.log.list`
 * is the screen `log.list`), so the page's title and the table's label are that command's title and
 * its create button is the group's. A screen declares only its own columns, filters, paging and drawer.
 */
export function ListScreen<C extends ContextName>(props: ListScreenProps<C>) {
  const { command, create, actions, hint, above, children, ...table } = props;
  const t = useT();
  const title = t(titleKey(command ?? table.endpoint.id));
  const buttons = create ? (
    <>
      <CommandButton id={`${table.endpoint.group}.create`} primary />
      {actions}
    </>
  ) : (
    actions
  );
  return (
    <Page title={title} actions={buttons}>
      {hint && <p className="muted">{t(hint)}</p>}
      {above}
      <DataTable<C> {...(table as DataTableProps<C>)} label={title} />
      {children}
    </Page>
  );
}
