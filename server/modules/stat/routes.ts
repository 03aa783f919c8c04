/**
 * `GET /statOrder/balance`: the balance views of the reports. `view=d0` is the D0 settlement summary
 * (`d0.ts`): a merchant user sees its own merchant only; naming another answers 404, as if it did not
 * exist. `view=account` is reconciliation (`account.ts`), the platform's alone: a merchant user gets 403.
 * `GET /statOrder/unproved` lists the paid orders behind a reconciliation row's `unproved` figure.
 */
import { balanceViewDays, balanceViewDefaultDays, unprovedLimit } from '../../../contract/endpoints/stat.ts';
import { addDays, daysBetween } from '../../../contract/endpoints/tn.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { businessNow } from '../settlement/tn.ts';
import { accountPage, accountTotals, decodeAccountCursor, unprovedOrders } from './account.ts';
import { d0Page, d0Totals, decodeD0Cursor } from './d0.ts';

export const statRoutes = [
  handle(endpoints.statOrder.balance, async ({ input, user, tx, deps, req }) => {
    const tenant = user.kind === 'merchant' ? user.merchantId! : null;
    // Reconciliation is the platform's: its accounts and statements are no merchant's business.
    if (input.view === 'account' && tenant !== null) throw new AppError(errno.forbidden);
    if (tenant !== null && input.merchantId !== undefined && input.merchantId !== tenant)
      throw new AppError(errno.notFound);
    const to = input.to ?? (await businessNow(tx, deps.clock.now())).day;
    const from = input.from ?? addDays(to, 1 - balanceViewDefaultDays);
    // The contract checks a period it is given whole; this, one completed with today.
    if (from > to) throw invalidField(req.lang, 'to', 'validation.periodOrder');
    if (daysBetween(from, to) >= balanceViewDays) throw invalidField(req.lang, 'to', 'validation.dayPeriod');
    if (input.view === 'account') {
      const filters = {
        from,
        to,
        by: input.by ?? 'account',
        accountId: input.accountId ?? null,
        channelId: input.channelId ?? null,
      };
      const after = input.cursor ? decodeAccountCursor(input.cursor, req.lang) : null;
      const page = await accountPage(tx, filters, after, input.pageSize);
      const { businessTimeZone, totals } = await accountTotals(tx, filters);
      return { view: 'account' as const, by: filters.by, from, to, businessTimeZone, ...page, totals };
    }
    const filters = { from, to, merchantId: tenant ?? input.merchantId ?? null };
    const after = input.cursor ? decodeD0Cursor(input.cursor, req.lang) : null;
    const page = await d0Page(tx, filters, after, input.pageSize);
    const { businessTimeZone, totals } = await d0Totals(tx, filters);
    return { view: 'd0' as const, from, to, businessTimeZone, ...page, totals };
  }),
  handle(endpoints.statOrder.unproved, ({ input, tx }) => unprovedOrders(tx, input, unprovedLimit)),
];
