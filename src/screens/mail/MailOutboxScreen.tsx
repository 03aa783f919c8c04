import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';

type Mail = Contexts['mail'];

const statusTone = { sent: 'ok', stored: 'info', failed: 'bad' } as const;

const columns: Column<Mail>[] = [
  {
    id: 'at',
    header: 'screens.mail.at',
    value: (r) => r.at,
    cell: (r) => formatTime(r.at),
    width: '170px',
    sortable: true,
  },
  { id: 'to', header: 'screens.mail.to', value: (r) => r.to, width: 'minmax(160px, 1fr)', sortable: true },
  { id: 'subject', header: 'screens.mail.subject', value: (r) => r.subject, width: 'minmax(180px, 2fr)' },
  {
    id: 'transport',
    header: 'screens.mail.transport',
    value: (r) => r.transport,
    cell: (r) => t(`screens.mail.transports.${r.transport}`),
    width: '90px',
  },
  {
    id: 'status',
    header: 'screens.mail.status',
    value: (r) => r.status,
    cell: (r) => <Badge tone={statusTone[r.status]}>{t(`screens.mail.statuses.${r.status}`)}</Badge>,
    width: '90px',
    sortable: true,
  },
];

export default function MailOutboxScreen() {
  const t = useT();
  const filters: Filter[] = [{ id: 'to', label: t('screens.mail.to'), kind: 'text' }];
  return (
    <Page title={t('commands.mailOutbox.list.title')}>
      <DataTable
        id="mail"
        label={t('commands.mailOutbox.list.title')}
        endpoint={endpoints.mailOutbox.list}
        context="mail"
        columns={columns}
        filters={filters}
        paging="cursor"
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => r.subject}
        detail={(r) => (
          <section className="detail-extra">
            <h3>{t('screens.mail.body')}</h3>
            <pre className="code-block">{r.body ?? t('screens.mail.noBody')}</pre>
            {r.error && <p className="field-error">{r.error}</p>}
          </section>
        )}
      />
    </Page>
  );
}
