import { systemClock } from '../domain/clock.js';
import { dynamoTransactionHistory } from '../store/transactions.js';
import type { TransactionsPorts } from '../usecases/transactions/ports.js';

/** The transactions use cases wired: the DynamoDB history index and its counters, and the clock. */
export function transactionsRuntime(): TransactionsPorts {
  return { history: dynamoTransactionHistory, clock: systemClock };
}
