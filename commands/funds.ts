import type { Command } from './types.ts';

export const fundCommands: readonly Command[] = [];
