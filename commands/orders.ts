import type { Command } from './types.ts';

export const orderCommands: readonly Command[] = [];
