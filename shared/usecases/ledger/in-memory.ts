/** @deprecated moved to test/support/fakes/ledger.ts (a test fake; nothing shipped imports it) */
export { InMemoryLedger } from '../../../test/support/fakes/ledger.js';
