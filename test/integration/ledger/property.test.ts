import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { FEES } from '../../../shared/domain/ledger.js';
import { dynamoLedger, listAllEntries, platformBalances } from '../../../shared/store/ledger.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { checkAgainstModel, opArb, runScenario, SCENARIO_CURRENCIES, SCENARIO_WALLET } from '../../unit/ledger/scenario.js';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../../shared/store/client.js';
import { keys } from '../../../shared/store/keys.js';
import { fromBaseUnits } from '../../../shared/domain/money.js';
import { CURRENCIES } from '../../../shared/domain/currencies.js';

/**
 * The same random sequences as the in-memory property test, fewer of them, against DynamoDB Local: the
 * store refuses exactly what the model refuses, and the stored journal sums to the stored balances.
 */
let table: TestTable;

beforeAll(async () => {
  table = await startTestTable();
});

afterAll(async () => {
  await table.stop();
});

describe('ledger properties on DynamoDB Local', () => {
  it('random credits, debits, holds, pending, transfers and wallet transfers: never negative, journal = balances', async () => {
    let feeUnits = new Map<string, bigint>();
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 25, size: 'max' }), async (ops) => {
        const tenantId = randomUUID();
        // The scenario's wallet account names a wallet that exists (the ledger takes no entry for a deleted one).
        await db().send(new PutCommand({ TableName: tableName(), Item: { ...keys.wallet(tenantId, SCENARIO_WALLET), type: 'wallet' } }));
        const { model } = await runScenario(dynamoLedger, tenantId, ops);
        await checkAgainstModel(dynamoLedger, tenantId, model, await listAllEntries(tenantId));
        for (const currency of SCENARIO_CURRENCIES) {
          feeUnits.set(currency, (feeUnits.get(currency) ?? 0n) + model.get(FEES, currency, 'amount'));
        }
      }),
      { numRuns: 12 },
    );
    // The platform fee account is the platform's: its shards sum to every tenant's fee lines.
    const fees = await platformBalances(FEES, SCENARIO_CURRENCIES);
    for (const currency of SCENARIO_CURRENCIES) {
      expect(fees[currency] ?? '0').toBe(fromBaseUnits(feeUnits.get(currency) ?? 0n, CURRENCIES[currency].decimals));
    }
    feeUnits = new Map();
  });
});
