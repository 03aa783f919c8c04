import { useStore } from '@nanostores/react';
import { type ComponentType, type ReactNode, useMemo } from 'react';
import { useSearchParams } from 'wouter';
import type { Contexts } from '../../../commands/index.ts';
import { allows, type Endpoint, endpoints, type Input } from '../../../contract/index.ts';
import { formatTotal } from '../../lib/format.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { useChoices } from '../../ui/choices.ts';
import { type Column, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { useDrawerParam } from '../../ui/drawerParam.ts';
import { ExportButtons } from '../../ui/ExportButton.tsx';
import { useLiveInterval } from '../../ui/live.ts';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { TimeRangeChooser, useTimeRange } from '../../ui/TimeRange.tsx';
import { TotalsBar, useTotals } from '../../ui/TotalsBar.tsx';
import { reachesNow } from '../../ui/timeRange.ts';
import { ListScreen } from '../ListScreen.tsx';
import type { OrderDrawerProps } from './OrderDetail.tsx';
import { areaOf, money, type OrderKind, orderMachines, useOrderFilters } from './parts.tsx';

interface OrderListProps<K extends OrderKind> {
  /** The kind of order, which is also the list's context and the name of its saved columns. */
  kind: K;
  /** Names the screen too: its command shares the endpoint's id. */
  list: Endpoint;
  totals: Endpoint;
  exporter: Endpoint;
  exportName: string;
  /** The columns as platform staff (every merchant's orders) or a merchant's user sees them. */
  columns: (platform: boolean) => Column<Contexts[K]>[];
  /** More buttons of the page head (single transfer, bulk upload). */
  actions?: ReactNode;
  /** The drawer of the order named by `?order=`; it reports the order it shows once read. */
  drawer: ComponentType<OrderDrawerProps<K>>;
}

/** A filter choosing one of a set-up list's rows (a channel, a receiving account), offered when it may be read. */
function choiceFilter<R extends { id: number }>(
  offered: boolean,
  id: string,
  label: string,
  rows: readonly R[] | undefined,
  names: (row: R) => [string, string],
): Filter[] {
  if (!offered) return [];
  const options = (rows ?? []).map((r) => ({ value: String(r.id), label: names(r).join(' · ') }));
  return [{ id, label, kind: 'select', options }];
}

/**
 * An order list: the period (a must, last 60 days), filters in the URL, totals of the filtered set,
 * keyset pages, exports, live refresh at the top, several pasted numbers as one filter, and the order's
 * drawer deep-linked as `?order=<system order number>`.
 */
export function OrderList<K extends OrderKind>(props: OrderListProps<K>) {
  const t = useT();
  const area = areaOf(props.kind);
  const machine = orderMachines[props.kind];
  const grants = useStore($grants);
  const [params] = useSearchParams();
  const range = useTimeRange('7d');
  const [merchantId, setMerchantId] = useMerchantParam();
  const filters = useOrderFilters(range.period);
  const platform = grants?.kind === 'platform';
  const canChannels = allows(grants, [endpoints.channel.list]);
  const channels = useChoices(endpoints.channel.list, {}, { enabled: canChannels, staleTime: 60_000 });
  // Pay-ins by the receiving account they were routed to (an account's `o`).
  const canAccounts = props.kind === 'payin' && allows(grants, [endpoints.receivingAccount.list]);
  const accounts = useChoices(
    endpoints.receivingAccount.list,
    {},
    { enabled: canAccounts, staleTime: 60_000 },
  );

  const live =
    range.period !== null && reachesNow({ from: new Date(range.period.from), to: new Date(range.period.to) });
  const onFirstPage = !params.get('cursor');
  const totalsInterval = useLiveInterval(live && onFirstPage);
  const totals = useTotals(props.totals, filters as Input<Endpoint> | null, { live: totalsInterval });

  const filterBar: Filter[] = [
    {
      id: 'q',
      label: t('screens.order.search'),
      kind: 'text',
      pasteMany: 'nos',
      placeholder: t('screens.order.searchPlaceholder'),
      hint: t('screens.order.searchHint'),
    },
    statusFilter(t, machine, { label: t('screens.order.status'), kind: 'multi' }),
    {
      id: 'pushStatus',
      label: t('screens.order.pushStatus'),
      kind: 'select',
      options: (['unpushed', 'pushed'] as const).map((s) => ({
        value: s,
        label: t(`screens.order.pushStatuses.${s}`),
      })),
    },
    ...choiceFilter(canChannels, 'channelId', t('screens.order.channel'), channels.data?.list, (c) => [
      c.code,
      c.name,
    ]),
    ...choiceFilter(
      canAccounts,
      'receivingAccountId',
      t('screens.order.receivingAccount'),
      accounts.data?.list,
      (a) => [a.bankName, a.accountNumber],
    ),
  ];

  const drawer = useDrawerParam<Contexts[K]>('order', (r) => r.orderNo);
  // Made once per viewer: new column objects on every render would rebuild the table's model.
  const columns = useMemo(() => props.columns(platform), [props.columns, platform]);

  const figures = totals.data as { count: number; amount: string; countCapped: boolean } | undefined;
  const cappedTitle = figures?.countCapped ? t('lists.totals.capped') : undefined;

  return (
    <ListScreen
      id={props.kind}
      endpoint={props.list}
      context={props.kind}
      actions={
        <>
          {props.actions}
          <ExportButtons
            endpoint={props.exporter}
            input={filters as Omit<Input<Endpoint>, 'format'> | null}
            filename={props.exportName}
          />
        </>
      }
      columns={columns}
      filters={filterBar}
      input={range.period ? { ...range.period, merchantId } : null}
      blockedText={range.error ? t(range.error) : undefined}
      paging="cursor"
      live={live}
      rowKey={(r) => r.orderNo}
      detailTitle={(r) => r.orderNo}
      onOpen={drawer.open}
      openRecord={drawer.record}
      toolbarStart={
        <>
          <TimeRangeChooser range={range} />
          {platform && <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
        </>
      }
      summary={
        <TotalsBar
          label={t('lists.totals.label')}
          busy={totals.isFetching && totals.isPlaceholderData}
          items={[
            {
              id: 'count',
              label: t('lists.totals.count'),
              value: figures ? formatTotal(figures.count, figures.countCapped) : '—',
              title: cappedTitle,
              tone: 'strong',
            },
            {
              id: 'amount',
              label: t(`${area}.totalAmount`),
              value: figures ? `${money(figures.amount)}${figures.countCapped ? '+' : ''}` : '—',
              title: cappedTitle,
            },
          ]}
        />
      }
    >
      {drawer.value && (
        <props.drawer orderNo={drawer.value} onClose={drawer.close} onShown={drawer.setShown} />
      )}
    </ListScreen>
  );
}
