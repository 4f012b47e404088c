import { jest } from '@jest/globals';
import { main } from '../../../scripts/gateway.js';
import { resetConfig } from '../../../shared/config/config.js';
import { dynamoSubscriptions } from '../../../shared/store/subscriptions.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { caller, EVERY_TOKEN_CONTRACT, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import { routedApi } from '../refunds/support.js';

/**
 * `dev clock advance --tenant T --days N` on DynamoDB Local: the tenant's subscription clock moves and the advancer
 * runs at once, so the next period of a paid-up subscription opens; another tenant's subscription is left alone; a
 * production stage refuses the command.
 */
let table: TestTable;
const saved = { ...process.env };
const SERVING = {
  EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:9/' }),
  FORWARDER_FACTORIES: JSON.stringify({ ETH: '0x1111111111111111111111111111111111111111' }),
  TOKEN_CONTRACTS: EVERY_TOKEN_CONTRACT,
  PUBLIC_BASE_URL: 'https://pay.example.com',
  STAGE: 'test',
};

beforeAll(async () => {
  table = await startTestTable();
  Object.assign(process.env, SERVING);
  resetConfig();
  await putFixedRates();
});

afterAll(async () => {
  for (const name of Object.keys(SERVING)) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  resetConfig();
  await table?.stop();
});

async function trialing(name: string): Promise<{ tenantId: string; id: string }> {
  const t = await tenantWithToken(name);
  const call = caller(routedApi(servingEth(SERVING), ['subscriptions']), () => t.bearer);
  const plan = await call('POST', '/plans/', { body: { name: 'Weekly', amount: '20', currency: 'USDTERC20', interval: 'week', trial_days: 7 } });
  const sub = await call('POST', '/subscriptions/', { body: { plan_id: plan.body.id, customer_reference: 'c', collection: 'push' } });
  expect(sub.body).toMatchObject({ status: 'trialing', setup: null });
  return { tenantId: t.tenantId, id: sub.body.id };
}

it('moves one tenant clock and opens the periods that fall due', async () => {
  const a = await trialing('Clock A');
  const b = await trialing('Clock B');
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    expect(await main(['dev', 'clock', 'advance', '--tenant', a.tenantId, '--days', '8'])).toBe(0);
    expect(log.mock.calls.flat().join('\n')).toMatch(/clock 8 days ahead/);
  } finally {
    log.mockRestore();
  }
  const movedA = await dynamoSubscriptions.get(a.tenantId, a.id);
  expect(movedA?.openCycle).toMatchObject({ index: 0, status: 'open' });
  expect((await dynamoSubscriptions.get(b.tenantId, b.id))?.openCycle).toBeNull();
});

it('is refused on a production stage', async () => {
  const a = await trialing('Clock prod');
  process.env.STAGE = 'prod';
  resetConfig();
  try {
    await expect(main(['dev', 'clock', 'advance', '--tenant', a.tenantId, '--days', '8'])).rejects.toThrow('not honoured in production');
  } finally {
    process.env.STAGE = 'test';
    resetConfig();
  }
  expect((await dynamoSubscriptions.get(a.tenantId, a.id))?.openCycle).toBeNull();
});
