import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { dynamoTransactionHistory } from '../store/transactions.js';
import type { ExportsPorts } from '../usecases/transactions/export-ports.js';
import type { TransactionsPorts } from '../usecases/transactions/ports.js';
import { exportsRuntime } from './exports.js';

/** The transactions Lambda wired: the DynamoDB history index and its counters, the exports, and the clock. */
export function transactionsRuntime(cfg: Config = config()): TransactionsPorts & ExportsPorts {
  return { ...exportsRuntime(cfg), history: dynamoTransactionHistory, clock: systemClock };
}
