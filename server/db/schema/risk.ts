/**
 * Risk rules (docs/MONEY-BACK.md section 4): the blocklist, whose removals are recorded rather than
 * deleted, and the refusals the rules made (rule, merchant, time), which the dashboard counts by rule.
 * Velocity limits are merchant terms (`merchants.velocity_*`), counted from `payin_orders.payer_key`.
 */
import { sql } from 'drizzle-orm';
import { bigserial, check, index, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { BlocklistKind, RiskRule } from '../../../contract/endpoints/risk.ts';
import { blocklistKinds, riskRules } from '../../../contract/endpoints/risk.ts';
import { at, createdAt } from './columns.ts';
import { merchantRef, users } from './tenancy.ts';

const listed = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(','));

/** One entry of the platform's blocklist: applies while not removed and not past `ends_at`. */
export const blocklistEntries = pgTable(
  'blocklist_entries',
  {
    id: serial('id').primaryKey(),
    kind: text('kind').notNull().$type<BlocklistKind>(),
    /** Normalised (`normalBlockValue`): what a request's value is compared with. */
    value: text('value').notNull(),
    reason: text('reason').notNull(),
    endsAt: at('ends_at'),
    createdBy: integer('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: createdAt(),
    removedBy: integer('removed_by').references(() => users.id),
    removedAt: at('removed_at'),
  },
  (t) => [
    /** One live entry per kind and value; the look-up of every request that consults the list. */
    uniqueIndex('blocklist_entries_live_key').on(t.kind, t.value).where(sql`${t.removedAt} is null`),
    index('blocklist_entries_time_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    check('blocklist_entries_kind', sql`${t.kind} in (${listed(blocklistKinds)})`),
    check('blocklist_entries_removed', sql`(${t.removedBy} is null) = (${t.removedAt} is null)`),
  ],
);

/**
 * A request a rule refused. The pay page refuses on every poll of a blocked order: `order_no` keeps one
 * row per order and rule there (null at creation, where nothing was created).
 */
export const riskRefusals = pgTable(
  'risk_refusals',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    rule: text('rule').notNull().$type<RiskRule>(),
    merchantId: merchantRef(),
    orderNo: text('order_no'),
    at: at('at').notNull(),
  },
  (t) => [
    /** Today's refusals, the platform's or one merchant's (the dashboard). */
    index('risk_refusals_at_idx').on(t.at, t.merchantId),
    uniqueIndex('risk_refusals_order_key').on(t.orderNo, t.rule).where(sql`${t.orderNo} is not null`),
    check('risk_refusals_rule', sql`${t.rule} in (${listed(riskRules)})`),
  ],
);
