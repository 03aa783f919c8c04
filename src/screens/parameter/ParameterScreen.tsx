import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import type { Column } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { shownValue } from './value.ts';

type Parameter = Contexts['parameter'];

const c = columnsOf<Parameter>('screens.parameter');

const columns: Column<Parameter>[] = [
  c.of('label', (p) => t(`parameters.${p.key}.label`), {
    header: 'screens.parameter.name',
    // The name and value are what is read at 800 px; the description gives way (the dialog has it whole).
    width: 'minmax(220px, 1.2fr)',
  }),
  c.of('description', (p) => t(`parameters.${p.key}.description`), {
    cell: (p) => <span className="muted">{t(`parameters.${p.key}.description`)}</span>,
    width: 'minmax(120px, 2fr)',
    sortable: false,
  }),
  c.of('value', (p) => shownValue(p.kind, p.value), {
    cell: (p) => (
      <span data-testid={`parameter-value-${p.key}`}>
        {shownValue(p.kind, p.value)}{' '}
        {!p.set && <Badge tone="muted">{t('screens.parameter.isDefault')}</Badge>}
      </span>
    ),
    width: 'minmax(150px, 1fr)',
    sortable: false,
  }),
  c.of('default', (p) => shownValue(p.kind, p.default), { width: 'minmax(110px, 1fr)', sortable: false }),
  c.time('updatedAt', '150px', { hiddenByDefault: true }),
];

/** The platform parameters: each with what it does, its value in force and its default; `e` edits one. */
export default function ParameterScreen() {
  const t = useT();
  return (
    <ListScreen
      id="parameter"
      endpoint={endpoints.parameter.list}
      context="parameter"
      hint="screens.parameter.hint"
      columns={columns}
      paging="cursor"
      rowKey={(p) => p.key}
      detailTitle={(p) => t(`parameters.${p.key}.label`)}
    />
  );
}
