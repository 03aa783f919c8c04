export * from './registry.ts';
export * from './search.ts';
export { settlementWallets } from './settlement.ts';
export * from './types.ts';
