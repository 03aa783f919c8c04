export * from './registry.ts';
export * from './search.ts';
export * from './types.ts';
