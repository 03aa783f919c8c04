import type { Contexts } from '../../../commands/index.ts';
import { thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';

type Alerts = Contexts['telegramGroup']['alerts'];

/** The alert rules in the order the form and the detail show them. */
export const alertNames = [
  'callbackGaveUp',
  'payoutStuckMinutes',
  'settlementApplied',
  'nearThreshold',
  'statementFeed',
  'payoutBalanceFloor',
  'channelSuccessFloorPct',
] as const;

/** A group's alerts in words, one short label each (the rules a group did not ask for left out). */
export function alertsOf(a: Alerts): string[] {
  const out: string[] = [];
  if (a.callbackGaveUp) out.push(t('screens.telegram.short.callbackGaveUp'));
  if (a.payoutStuckMinutes) out.push(t('screens.telegram.short.payoutStuck', { n: a.payoutStuckMinutes }));
  if (a.settlementApplied) out.push(t('screens.telegram.short.settlementApplied'));
  if (a.nearThreshold) out.push(t('screens.telegram.short.nearThreshold'));
  if (a.statementFeed) out.push(t('screens.telegram.short.statementFeed'));
  if (a.payoutBalanceFloor)
    out.push(t('screens.telegram.short.payoutBalance', { floor: thousands(a.payoutBalanceFloor) }));
  if (a.channelSuccessFloorPct)
    out.push(t('screens.telegram.short.channelRate', { pct: a.channelSuccessFloorPct }));
  return out;
}
