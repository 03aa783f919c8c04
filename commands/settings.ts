import type { Command } from './types.ts';

export const settingCommands: readonly Command[] = [];
