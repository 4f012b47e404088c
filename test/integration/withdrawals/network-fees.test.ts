import { getBalance, platformBalances } from '../../../shared/store/ledger.js';
import { dynamoChainTxStore } from '../../../shared/store/chain-tx.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { runWithdrawalBatch, STAGING_COMPLETE } from '../../../shared/usecases/withdrawals/process.js';
import { batcherDeps, withdrawalsApi } from '../../support/withdrawals.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { caller, putFixedRates, tenantWithToken } from '../payments/support.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';

/** `WITHDRAWAL_NETWORK_FEES` through the HTTP API: estimates, the amount a creation holds, what completion books. */
let table: TestTable;
let t: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
const previous = process.env.WITHDRAWAL_NETWORK_FEES;

beforeAll(async () => {
  table = await startTestTable();
  process.env.WITHDRAWAL_NETWORK_FEES = '{"USDTERC20":"1.5","USDCERC20":"0"}';
  const { resetConfig } = await import('../../../shared/config/config.js');
  resetConfig();
  await putFixedRates();
  t = await tenantWithToken('Network fees');
  await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDTERC20', amount: '200', reason: 'test funding' }, ledgerRuntime());
  await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDCERC20', amount: '200', reason: 'test funding' }, ledgerRuntime());
  const handler = withdrawalsApi();
  call = caller(handler, () => t.bearer);
});

afterAll(async () => {
  if (previous === undefined) delete process.env.WITHDRAWAL_NETWORK_FEES;
  else process.env.WITHDRAWAL_NETWORK_FEES = previous;
  const { resetConfig } = await import('../../../shared/config/config.js');
  resetConfig();
  await table?.stop();
});

describe('withdrawal network fees from configuration', () => {
  it('the estimate, the fee estimate and the limits show the configured fee', async () => {
    const estimate = await call('POST', '/withdrawal/estimate/', { body: { amount: '102.5', currency: 'USDTERC20' } });
    expect([estimate.status, estimate.body]).toEqual([
      200,
      expect.objectContaining({
        amount: '100.00000000',
        network_fee: '1.50000000',
        platform_fee: '1.00000000',
        fee: '2.50000000',
        total_deducted: '102.50000000',
      }),
    ]);
    expect((await call('POST', '/withdrawal/fee-estimate/', { body: { amount: '100', currency: 'USDCERC20' } })).body).toMatchObject({
      network_fee: '0.00000000',
      total_deducted: '101.00000000',
    });
    const limits = (await call('GET', '/withdrawal/limits/')).body.currencies as { currency: string; network_fee: string }[];
    expect(
      Object.fromEntries(limits.filter((c) => ['USDTERC20', 'USDCERC20', 'DAIERC20'].includes(c.currency)).map((c) => [c.currency, c.network_fee])),
    ).toEqual({
      USDTERC20: '1.50000000',
      USDCERC20: '0.00000000',
      DAIERC20: '3.00000000',
    });
  });

  it('a creation holds amount + configured fee, and completion books that fee to the platform', async () => {
    const made = await call('POST', '/withdrawal/', { body: { amount: '100', currency: 'USDTERC20', address: STAGING_COMPLETE } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ network_fee: '1.50000000', transaction_fee: '1.00000000', total_fee: '2.50000000', total_deducted: '102.50000000' });
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '97.5', pending: '0', locked: '102.5' });
    // A zero network fee: only the platform fee on top.
    const free = await call('POST', '/withdrawal/', { body: { amount: '50', currency: 'USDCERC20', address: STAGING_COMPLETE } });
    expect(free.body).toMatchObject({ network_fee: '0.00000000', total_deducted: '50.50000000' });

    // The staging address completes without a chain transaction: the fee recorded at creation is what is booked.
    const report = await runWithdrawalBatch(
      batcherDeps({
        wallet: async () => ({ keyId: 'unused', address: '0x1111111111111111111111111111111111111111' }),
        chainTx: { store: dynamoChainTxStore, clock: () => new Date() },
        tokenContract: () => null,
      }),
    );
    expect(report).toMatchObject({ completed: 2 });
    expect((await call('GET', `/withdrawal/${made.body.id}/`)).body.status).toBe('completed');
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '97.5', pending: '0', locked: '0' });
    const booked = await platformBalances('platform:network_fees', ['USDTERC20', 'USDCERC20']);
    expect([booked.USDTERC20, booked.USDCERC20 ?? '0']).toEqual(['1.5', '0']);
  });
});
