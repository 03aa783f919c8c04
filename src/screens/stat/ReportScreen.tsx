import type { ContextName } from '../../../commands/index.ts';
import type { Endpoint, Input } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { ExportButtons } from '../../ui/ExportButton.tsx';
import { ListScreen, type ListScreenProps } from '../ListScreen.tsx';
import { noFilters, type ReportPeriod, ReportPeriodChooser } from './ReportPeriod.tsx';

type ReportScreenProps<C extends ContextName, E extends Endpoint> = Omit<
  ListScreenProps<C>,
  'actions' | 'above' | 'toInput' | 'blockedText' | 'paging' | 'countOf'
> & {
  range: ReportPeriod;
  /** The report's export endpoint, the filters it exports and its file's name. */
  exporter: E;
  exportInput: Omit<Input<E>, 'format'> | null;
  exportName: string;
};

/**
 * A statistics report: the rows of a business-day period its chooser sets (held back while the choice
 * is refused, with the reason), asked by the screen's own input rather than the filter bar, counted by
 * the total the report answers with its rows, and exported as the same question.
 */
export function ReportScreen<C extends ContextName, E extends Endpoint>(props: ReportScreenProps<C, E>) {
  const { range, exporter, exportInput, exportName, toolbarStart, ...list } = props;
  const t = useT();
  return (
    <ListScreen<C>
      {...(list as ListScreenProps<C>)}
      actions={<ExportButtons endpoint={exporter} input={exportInput} filename={exportName} />}
      toInput={noFilters}
      blockedText={range.error ? t(range.error) : undefined}
      paging="cursor"
      toolbarStart={
        <>
          <ReportPeriodChooser range={range} />
          {toolbarStart}
        </>
      }
      countOf={(answer) => (answer as { total: number }).total}
    />
  );
}
