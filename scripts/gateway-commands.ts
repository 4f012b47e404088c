import type { Command } from './gateway.js';

/**
 * Command groups contributed by later capabilities (balances, dev tools). Each group is a map of command
 * name to Command; `scripts/gateway.ts` merges them into its table.
 */
export const extraCommands: Record<string, Record<string, Command>> = {};
