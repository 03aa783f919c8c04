import { balanceViewDays, balanceViewDefaultDays } from '../../../contract/endpoints/stat.ts';
import { addDays, daysBetween } from '../../../contract/endpoints/tn.ts';
import type { Db } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import type { RequestMeta } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { businessNow } from '../settlement/tn.ts';

/**
 * A report's period: `to` defaults to today (in the stored business time zone), `from` to the week up to
 * `to`. The contract checks a period it is given whole; this, one completed with today.
 */
export async function periodOf(
  tx: Db,
  deps: Deps,
  input: { from?: string | undefined; to?: string | undefined },
  req: RequestMeta,
) {
  const to = input.to ?? (await businessNow(tx, deps.clock.now())).day;
  const from = input.from ?? addDays(to, 1 - balanceViewDefaultDays);
  if (from > to) throw invalidField(req.lang, 'to', 'validation.periodOrder');
  if (daysBetween(from, to) >= balanceViewDays) throw invalidField(req.lang, 'to', 'validation.dayPeriod');
  return { from, to };
}
