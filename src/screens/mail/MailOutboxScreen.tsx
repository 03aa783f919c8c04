import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';

type Mail = Contexts['mail'];

const statusTone = { sent: 'ok', stored: 'info', failed: 'bad' } as const;

const c = columnsOf<Mail>('screens.mail');

const columns: Column<Mail>[] = [
  c.time('at', '170px'),
  c.text('to', 'minmax(160px, 1fr)'),
  c.text('subject', 'minmax(180px, 2fr)', { sortable: false }),
  c.text('transport', '90px', { cell: (r) => t(`screens.mail.transports.${r.transport}`), sortable: false }),
  c.badge('status', (r) => statusTone[r.status], 'statuses', '90px'),
];

export default function MailOutboxScreen() {
  const t = useT();
  const filters: Filter[] = [{ id: 'to', label: t('screens.mail.to'), kind: 'text' }];
  return (
    <ListScreen
      id="mail"
      endpoint={endpoints.mailOutbox.list}
      context="mail"
      columns={columns}
      filters={filters}
      paging="cursor"
      detailTitle={(r) => r.subject}
      detail={(r) => (
        <section className="detail-extra">
          <h3>{t('screens.mail.body')}</h3>
          <pre className="code-block">{r.body ?? t('screens.mail.noBody')}</pre>
          {r.error && <p className="field-error">{r.error}</p>}
        </section>
      )}
    />
  );
}
