import { useQuery } from '@tanstack/react-query';
import { Fragment } from 'react';
import { useSearchParams } from 'wouter';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { telegramDelivery } from '../../../contract/machines.ts';
import { api } from '../../lib/api.ts';
import { formatTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { useT } from '../../lib/useT.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { Icon } from '../../ui/Icon.tsx';
import { ViewTabs } from '../../ui/ViewTabs.tsx';
import { columnsOf, hidden } from '../columns.tsx';
import { Page } from '../Page.tsx';
import { alertNames, alertsOf } from './alerts.ts';
import './telegram.css';

type Group = Contexts['telegramGroup'];
type Delivery = Contexts['telegramDelivery'];

const deliveryTones: Record<Delivery['status'], Tone> = { pending: 'warn', sent: 'ok', gave_up: 'bad' };

/** "All" when a group follows everything, else how many it follows. */
const followed = (ids: readonly number[]) =>
  ids.length ? t('screens.telegram.some', { n: ids.length }) : t('screens.telegram.all');

const g = columnsOf<Group>('screens.telegram');
const d = columnsOf<Delivery>('screens.telegram');

const groupColumns: Column<Group>[] = [
  g.text('name', 'minmax(140px, 1fr)'),
  g.text('chatId', '170px'),
  g.of('alerts', (r) => alertsOf(r.alerts).join(', '), {
    cell: (r) => (
      // One line: the whole list on hover, and in the drawer.
      <span className="tg-alerts" title={alertsOf(r.alerts).join(', ')}>
        {alertsOf(r.alerts).map((a) => (
          <Badge key={a} tone="info">
            {a}
          </Badge>
        ))}
      </span>
    ),
    width: 'minmax(240px, 2fr)',
    sortable: false,
  }),
  g.of('merchants', (r) => followed(r.merchantIds), { width: '110px', sortable: false }),
  g.of('channels', (r) => followed(r.channelIds), { width: '110px', sortable: false }),
  g.badge('status', (r) => (r.status === 'active' ? 'ok' : 'muted'), 'statuses', '96px'),
  g.time('updatedAt', '150px', hidden),
];

const deliveryColumns: Column<Delivery>[] = [
  d.time('createdAt', '170px', { sortable: false }),
  d.of('group', (r) => r.groupName, { width: 'minmax(120px, 1fr)', sortable: false }),
  d.of('alert', (r) => t(`screens.telegram.alertKinds.${r.alert}`), { width: '150px', sortable: false }),
  d.text('status', '96px', {
    cell: (r) => <Badge tone={deliveryTones[r.status]}>{stateLabel(t, telegramDelivery, r.status)}</Badge>,
    sortable: false,
  }),
  d.text('attempts', '80px', { sortable: false }),
  d.text('lastError', 'minmax(160px, 1.5fr)', { sortable: false }),
  d.text('text', 'minmax(200px, 2fr)', hidden),
  d.time('nextAttemptAt', '150px', hidden),
];

/** Whether a bot token is set (never the token), with who set it last. */
function BotCard() {
  const t = useT();
  const bot = useQuery({
    queryKey: ['list', 'telegram-bot'],
    queryFn: () => api(endpoints.telegram.bot, {}),
  });
  const b = bot.data;
  return (
    <section className="tg-bot" aria-label={t('screens.telegram.bot')}>
      <Icon name="send" />
      <div className="tg-bot-text">
        <strong>{t('screens.telegram.bot')}</strong>
        <span>
          {b?.set ? (
            <>
              <Badge tone="ok">{t('screens.telegram.botSet')}</Badge>{' '}
              <span className="muted">
                {t('screens.telegram.botSetBy', {
                  user: b.updatedBy ?? '-',
                  at: formatTime(b.updatedAt ?? ''),
                })}
              </span>
            </>
          ) : (
            <>
              <Badge tone="warn">{t('screens.telegram.botUnset')}</Badge>{' '}
              <span className="muted">{t('screens.telegram.botUnsetHint')}</span>
            </>
          )}
        </span>
      </div>
      <CommandButton id="telegram.botUpdate" />
    </section>
  );
}

/**
 * Telegram alerts: the bot, the groups with the merchants and channels they follow and the alerts they
 * asked for (test message, disable, delete by key on the focused row), and every delivery with its
 * attempts and last error.
 */
export default function TelegramScreen() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'deliveries' ? 'deliveries' : 'groups';
  const choose = (next: 'groups' | 'deliveries') =>
    setParams((p) => {
      const out = new URLSearchParams();
      if (next === 'deliveries') out.set('tab', 'deliveries');
      for (const [k, v] of p)
        if (k !== 'tab' && k !== 'cursor' && k !== 'page' && k !== 'status') out.set(k, v);
      return out;
    });
  const deliveryFilters: Filter[] = [
    statusFilter(t, telegramDelivery, { label: t('screens.telegram.status') }),
  ];
  return (
    <Page
      title={t('commands.telegram.groupList.title')}
      actions={<CommandButton id="telegram.groupCreate" primary />}
    >
      <BotCard />
      <ViewTabs
        className="tg-tabs"
        label={t('commands.telegram.groupList.title')}
        tabs={['groups', 'deliveries'] as const}
        current={tab}
        choose={choose}
        title={(k) => t(`screens.telegram.tabs.${k}`)}
      />
      {tab === 'groups' ? (
        <DataTable
          key="groups"
          id="telegram-groups"
          label={t('screens.telegram.tabs.groups')}
          endpoint={endpoints.telegram.groupList}
          context="telegramGroup"
          columns={groupColumns}
          paging="page"
          detailTitle={(r) => r.name}
          detail={(r) => (
            <dl className="facts">
              <dt>{t('screens.telegram.chatId')}</dt>
              <dd>
                <code>{r.chatId}</code>
              </dd>
              {alertNames.map((a) => (
                <Fragment key={a}>
                  <dt>{t(`screens.telegram.rules.${a}`)}</dt>
                  <dd>{r.alerts[a] === null || r.alerts[a] === false ? '—' : String(r.alerts[a])}</dd>
                </Fragment>
              ))}
            </dl>
          )}
        />
      ) : (
        <DataTable
          key="deliveries"
          id="telegram-deliveries"
          label={t('screens.telegram.tabs.deliveries')}
          endpoint={endpoints.telegram.deliveryList}
          context="telegramDelivery"
          columns={deliveryColumns}
          filters={deliveryFilters}
          paging="cursor"
          detailTitle={(r) => `${r.groupName} · ${t(`screens.telegram.alertKinds.${r.alert}`)}`}
          detail={(r) => (
            <>
              <p className="tg-text">{r.text}</p>
              {r.lastError && (
                <p className="muted">
                  {t('screens.telegram.lastError')}: {r.lastError}
                </p>
              )}
            </>
          )}
        />
      )}
    </Page>
  );
}
