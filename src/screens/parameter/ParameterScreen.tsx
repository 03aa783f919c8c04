import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';
import { shownValue } from './value.ts';

type Parameter = Contexts['parameter'];

const columns: Column<Parameter>[] = [
  {
    id: 'label',
    header: 'screens.parameter.name',
    value: (p) => t(`parameters.${p.key}.label`),
    // The name and value are what is read at 800 px; the description gives way (the dialog has it whole).
    width: 'minmax(220px, 1.2fr)',
    sortable: true,
  },
  {
    id: 'description',
    header: 'screens.parameter.description',
    value: (p) => t(`parameters.${p.key}.description`),
    cell: (p) => <span className="muted">{t(`parameters.${p.key}.description`)}</span>,
    width: 'minmax(120px, 2fr)',
  },
  {
    id: 'value',
    header: 'screens.parameter.value',
    value: (p) => shownValue(p.kind, p.value),
    cell: (p) => (
      <span data-testid={`parameter-value-${p.key}`}>
        {shownValue(p.kind, p.value)}{' '}
        {!p.set && <Badge tone="muted">{t('screens.parameter.isDefault')}</Badge>}
      </span>
    ),
    width: 'minmax(150px, 1fr)',
  },
  {
    id: 'default',
    header: 'screens.parameter.default',
    value: (p) => shownValue(p.kind, p.default),
    width: 'minmax(110px, 1fr)',
  },
  {
    id: 'updatedAt',
    header: 'screens.parameter.updatedAt',
    value: (p) => p.updatedAt,
    cell: (p) => (p.updatedAt ? formatTime(p.updatedAt) : ''),
    width: '150px',
    sortable: true,
    hiddenByDefault: true,
  },
];

/** The platform parameters: each with what it does, its value in force and its default; `e` edits one. */
export default function ParameterScreen() {
  const t = useT();
  const title = t('commands.parameter.list.title');
  return (
    <Page title={title}>
      <p className="muted">{t('screens.parameter.hint')}</p>
      <DataTable
        id="parameter"
        label={title}
        endpoint={endpoints.parameter.list}
        context="parameter"
        columns={columns}
        paging="cursor"
        rowKey={(p) => p.key}
        detailTitle={(p) => t(`parameters.${p.key}.label`)}
      />
    </Page>
  );
}
