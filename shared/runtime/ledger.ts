import { systemClock } from '../domain/clock.js';
import { dynamoLedger } from '../store/ledger.js';
import { dynamoTenants } from '../store/tenants.js';
import type { LedgerPorts } from '../usecases/ledger/ports.js';

/** The operator adjustments: the DynamoDB ledger and tenants. */
export function ledgerRuntime(): LedgerPorts {
  return { ledger: dynamoLedger, tenants: dynamoTenants, clock: systemClock };
}
