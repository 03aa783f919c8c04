import type { Command } from './types.ts';

export const businessCommands: readonly Command[] = [];
