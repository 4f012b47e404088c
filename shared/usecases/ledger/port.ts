/** @deprecated moved to ./ports.ts */
export type { LedgerPort } from './ports.js';
