import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useSearchParams } from 'wouter';
import { type Contexts, commandById } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { payin, payout } from '../../../contract/machines.ts';
import { api } from '../../lib/api.ts';
import { formatTime, relativeTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { queryClient } from '../../lib/query.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { actionApplies, runCommand } from '../../shell/runtime.ts';
import { Badge } from '../../ui/Badge.tsx';
import { type Column, DataTable, type Filter } from '../../ui/DataTable.tsx';
import { Icon } from '../../ui/Icon.tsx';
import { Spinner } from '../../ui/Spinner.tsx';
import { lookbackDays, startOfDay } from '../../ui/timeRange.ts';
import { ViewTabs } from '../../ui/ViewTabs.tsx';
import { simulatorSettingsOf } from '../channel/settings.ts';
import { amountColumn, columnsOf, merchantColumn, merchantWidthTight } from '../columns.tsx';
import { Page } from '../Page.tsx';
import './simulator.css';

type Payin = Contexts['simulatorPayin'];
type Payout = Contexts['simulatorPayout'];
type Channel = Contexts['channel'];

const dayMs = 86_400_000;

/** The columns both lists show, each list's own row type. */
function sharedColumns<R extends Payin | Payout>() {
  const c = columnsOf<R>('screens.simulator');
  const orderNo = c.code('orderNo', 'minmax(215px, 1.3fr)', { sortable: false });
  const createdAt = c.time('createdAt', '110px', {
    cell: (r) => <time title={formatTime(r.createdAt)}>{relativeTime(r.createdAt, t)}</time>,
  });
  const merchant = merchantColumn<R>('screens.simulator.merchant', true, merchantWidthTight);
  return { orderNo, merchant, amount: amountColumn<R>('screens.simulator.amount'), createdAt };
}

const payinKit = columnsOf<Payin>('screens.simulator');
const payinShared = sharedColumns<Payin>();
const payinColumns: Column<Payin>[] = [
  payinShared.orderNo,
  payinKit.text('merchantOrderNo', 'minmax(140px, 1fr)', { sortable: false }),
  ...payinShared.merchant,
  payinShared.amount,
  payinShared.createdAt,
  payinKit.time('expiresAt', '150px', {
    cell: (r) => <time title={formatTime(r.expiresAt)}>{formatTime(r.expiresAt, false)}</time>,
  }),
  payinKit.text('channelOrderId', 'minmax(150px, 1fr)', { hiddenByDefault: true, sortable: false }),
];

const payoutKit = columnsOf<Payout>('screens.simulator');
const payoutShared = sharedColumns<Payout>();
const payoutColumns: Column<Payout>[] = [
  payoutShared.orderNo,
  ...payoutShared.merchant,
  payoutShared.amount,
  payoutKit.text('accountName', 'minmax(110px, 1fr)', { sortable: false }),
  payoutKit.of('account', (r) => `${r.accountNumber} ${r.ifsc}`, {
    cell: (r) => (
      <span>
        <code>{r.accountNumber}</code> <span className="muted">{r.ifsc}</span>
      </span>
    ),
    width: 'minmax(170px, 1.2fr)',
    sortable: false,
  }),
  payoutKit.text('source', '90px', {
    cell: (r) => t(`screens.simulator.sources.${r.source}`),
    hiddenByDefault: true,
    sortable: false,
  }),
  payoutShared.createdAt,
];

/** The simulator channel(s) and the one the lists show when the URL names none (`simulator` first). */
function useSimulatorChannels() {
  return useQuery({
    queryKey: ['simulator-screen', 'channels'],
    queryFn: () => api(endpoints.channel.list, { pageSize: 100 }),
    select: (page) => {
      const list = page.list.filter((c) => c.adapter === 'simulator');
      const main = list.find((c) => c.code === 'simulator') ?? list[0];
      return { list, main };
    },
  });
}

function ModeCard({ channel }: { channel: Channel }) {
  const t = useT();
  const s = simulatorSettingsOf(channel.settings);
  const edit = commandById('channel.edit');
  // Re-rendered when the permissions change: the settings button is there only for who may edit channels.
  useStore($grants);
  const canEdit = edit?.kind === 'action' && actionApplies(edit, channel);
  return (
    <section className="sim-mode" aria-label={t('screens.simulator.mode')}>
      <Icon name="play" />
      <div className="sim-mode-text">
        <strong>
          <code>{channel.code}</code> {channel.name}
        </strong>
        <span>
          {s.auto ? (
            <Badge tone="warn">
              {t('screens.simulator.autoOn', {
                rate: s.successRate,
                delay: s.delayMs / 1000,
                lost: s.lostCallbackRate,
              })}
            </Badge>
          ) : (
            <Badge tone="muted">{t('screens.simulator.manual')}</Badge>
          )}{' '}
          <span className="muted">
            {t(s.auto ? 'screens.simulator.autoHint' : 'screens.simulator.manualHint')}
          </span>
        </span>
      </div>
      {edit && canEdit && (
        <button type="button" className="button" onClick={() => void runCommand(edit, channel)}>
          <Icon name="edit" />
          {t('screens.simulator.settings')}
        </button>
      )}
    </section>
  );
}

/**
 * Simulated users: the test payer. Pay-ins waiting at the simulator channel (pay, pay with the callback
 * lost, fail) and payouts it is processing (succeed, fail), each by a key on the focused row.
 */
export default function SimulatorScreen() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const kind = params.get('kind') === 'payout' ? 'payout' : 'payin';
  const channels = useSimulatorChannels();
  const main = channels.data?.main;

  const period = useCallback(
    (filters: Record<string, string>) => {
      const now = new Date();
      return {
        ...filters,
        // Order lists take a period: the 60 days they may look at, as the lists' own 60-day choice.
        from: startOfDay(now, lookbackDays - 1).toISOString(),
        to: new Date(now.getTime() + dayMs).toISOString(),
        channelId: filters.channelId ?? main?.id,
        // What the simulator may settle as the channel.
        status: kind === 'payin' ? payin.state.pending : payout.state.processing,
      };
    },
    [main?.id, kind],
  );

  const filters: Filter[] = [
    { id: 'q', label: t('screens.simulator.search'), kind: 'text' },
    ...((channels.data?.list.length ?? 0) > 1
      ? [
          {
            id: 'channelId',
            label: t('screens.simulator.channel'),
            kind: 'select' as const,
            options: (channels.data?.list ?? []).map((c) => ({
              value: String(c.id),
              label: `${c.code} ${c.name}`,
            })),
          },
        ]
      : []),
  ];

  const choose = (next: 'payin' | 'payout') =>
    setParams((p) => {
      const out = new URLSearchParams(p);
      if (next === 'payout') out.set('kind', 'payout');
      else out.delete('kind');
      // A pay-in's number finds no payout: the other list starts unfiltered.
      for (const k of ['cursor', 'page', 'sort', 'q']) out.delete(k);
      return out;
    });

  const refresh = (
    <button
      type="button"
      className="button"
      onClick={() => void queryClient.invalidateQueries({ queryKey: ['list'] })}
    >
      <Icon name="refresh" />
      <span className="button-label">{t('screens.simulator.refresh')}</span>
    </button>
  );

  // What the two lists of waiting orders share; each kind's list is its own table (`key`).
  const waitingList = {
    id: `simulator-${kind}`,
    label: t(`screens.simulator.tabs.${kind}`),
    filters,
    paging: 'cursor',
    detailTitle: (r: Payin | Payout) => r.orderNo,
    toInput: period,
    toolbar: refresh,
  } as const;

  return (
    <Page title={t('commands.simulator.list.title')}>
      {channels.isLoading ? (
        <Spinner />
      ) : !main ? (
        <p className="notice">{t('screens.simulator.noChannel')}</p>
      ) : (
        <>
          <ModeCard channel={main} />
          <ViewTabs
            label={t('commands.simulator.list.title')}
            tabs={['payin', 'payout'] as const}
            current={kind}
            choose={choose}
            title={(k) => t(`screens.simulator.tabs.${k}`)}
          >
            <span className="sim-keys muted">{t(`screens.simulator.keys.${kind}`)}</span>
          </ViewTabs>
          {kind === 'payin' ? (
            <DataTable
              key="payin"
              {...waitingList}
              endpoint={endpoints.merchantOrder.list}
              context="simulatorPayin"
              columns={payinColumns}
            />
          ) : (
            <DataTable
              key="payout"
              {...waitingList}
              endpoint={endpoints.merchantPayout.list}
              context="simulatorPayout"
              columns={payoutColumns}
            />
          )}
        </>
      )}
    </Page>
  );
}
