import type { PaymentState } from '../../../shared/domain/payments.js';
import { openPayment, transition } from '../../../shared/domain/payments.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { dynamoTenantStatistics } from '../../../shared/store/statistics.js';
import { aDeposit, aPayment, FIXTURE_TIME } from '../../support/fixtures/payments.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';

/** A tenant's totals as its payments keep them: counted at creation, their USD volume added once when credited. */
let table: TestTable;
const now = FIXTURE_TIME;

beforeAll(async () => {
  table = await startTestTable();
});

afterAll(async () => {
  await table?.stop();
});

async function created(tenantId: string, id: string, amountUsd: string): Promise<PaymentState> {
  const {
    status: _s,
    createdAt: _c,
    updatedAt: _u,
    transactionHash: _t,
    deposits: _d,
    flags: _f,
    merchantReceived: _m,
    merchantReceivedUsd: _r,
    sweepTxHash: _w,
    version: _v,
    ...draft
  } = aPayment({ id, tenantId, amountUsd, address: `0x${id.padStart(40, '0')}` });
  return dynamoPayments.create({ change: openPayment(draft, now), family: 'evm', dailyLimitUsd: null }, now);
}

async function step(p: PaymentState, fact: Parameters<typeof transition>[1]): Promise<PaymentState> {
  return dynamoPayments.save(p, transition(p, fact, now), now);
}

it('counts every payment created and adds the USD amount of each credited one, once', async () => {
  const tenantId = 'stats-tenant';
  expect(await dynamoTenantStatistics.read(tenantId)).toEqual({ payments: 0, withdrawals: 0, volumeUsd: '0' });

  let p = await created(tenantId, 'a1', '25.00');
  await created(tenantId, 'a2', '10.50');
  await created('someone-else', 'b1', '99.00');
  expect(await dynamoTenantStatistics.read(tenantId)).toEqual({ payments: 2, withdrawals: 0, volumeUsd: '0' });

  p = await step(p, { kind: 'deposit', deposit: aDeposit('d1', '25') });
  p = await step(p, { kind: 'confirmations', byDeposit: { d1: 2 }, confirmationsNeeded: 2, tolerancePercent: '0' });
  p = await step(p, { kind: 'sweep_started' });
  expect((await dynamoTenantStatistics.read(tenantId)).volumeUsd).toBe('0');
  p = await step(p, { kind: 'sweep_completed', txHash: '0xs', usdRate: '1' });
  expect(p.status).toBe('completed');
  // A later confirmation count changes the payment but credits nothing again.
  await step(p, { kind: 'confirmations', byDeposit: { d1: 5 }, confirmationsNeeded: 2, tolerancePercent: '0' });
  expect(await dynamoTenantStatistics.read(tenantId)).toEqual({ payments: 2, withdrawals: 0, volumeUsd: '25' });
  expect(await dynamoTenantStatistics.read('someone-else')).toEqual({ payments: 1, withdrawals: 0, volumeUsd: '0' });
});
