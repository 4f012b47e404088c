import { resetConfig } from '../../../shared/config/config.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { withdrawalsApi } from '../../support/withdrawals.js';
import { caller, putFixedRates, tenantWithToken } from '../payments/support.js';

/** A withdrawal's hold as `GET /user/balances/` shows it: owned, available and locked, and released at once on cancel. */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let table: TestTable;
let withdrawals: ReturnType<typeof caller>;
let user: ReturnType<typeof caller>;

beforeAll(async () => {
  table = await startTestTable();
  resetConfig();
  await putFixedRates();
  const t = await tenantWithToken('Held balance');
  await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDTERC20', amount: '100', reason: 'test funding' }, ledgerRuntime());
  withdrawals = caller(withdrawalsApi(), () => t.bearer);
  user = caller((await import('../../../functions/user/handler.js')).handler, () => t.bearer);
});

afterAll(async () => {
  await table?.stop();
});

const usdt = async () => ((await user('GET', '/user/balances/')).body.account as Record<string, unknown>).USDTERC20;

it('shows a pending withdrawal as locked, not available, and returns it to available when cancelled', async () => {
  expect(await usdt()).toEqual({ amount: '100.000000', pending_amount: '0.000000', available_balance: '100.000000', locked_amount: '0.000000' });

  const created = await withdrawals('POST', '/withdrawal/', { body: { amount: '20', currency: 'USDTERC20', address: DEST } });
  expect(created.status).toBe(201);
  // 20.00 to the recipient plus the fees (network 3.00, platform 1% = 0.20): 23.20 held.
  expect(created.body.total_deducted).toBe('23.20000000');
  expect(await usdt()).toEqual({ amount: '100.000000', pending_amount: '0.000000', available_balance: '76.800000', locked_amount: '23.200000' });

  const cancelled = await withdrawals('POST', `/withdrawal/${String(created.body.id)}/cancel/`);
  expect(cancelled.body.status).toBe('cancelled');
  expect(await usdt()).toEqual({ amount: '100.000000', pending_amount: '0.000000', available_balance: '100.000000', locked_amount: '0.000000' });
  // The tenant record counts the withdrawal, cancelled or not, and the one currency held.
  expect((await user('GET', '/user/me/')).body.statistics).toEqual({ total_payments: 0, total_withdrawals: 1, total_volume_usd: '0.00', active_currencies: 1 });
});
