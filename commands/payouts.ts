import type { Command } from './types.ts';

export const payoutCommands: readonly Command[] = [];
