/**
 * The database schema, one file an area under `schema/`. Migrations are generated from it
 * (`npm run db:generate`, which reads this index) and committed; rules the ORM cannot express
 * (append-only triggers) live in hand-written migrations beside them.
 */
export * from './schema/accountFreezes.ts';
export * from './schema/disputes.ts';
export * from './schema/ledger.ts';
export * from './schema/moneyOut.ts';
export * from './schema/orders.ts';
export * from './schema/receiving.ts';
export * from './schema/refunds.ts';
export * from './schema/risk.ts';
export * from './schema/tenancy.ts';
