import { paymentRoutes } from '../../../functions/payments/routes.js';
import { walletRoutes } from '../../../functions/wallets/routes.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { walletsRuntime } from '../../../shared/runtime/wallets.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { caller, servingEth, putFixedRates, tenantWithToken } from '../payments/support.js';

/** A payment names its wallet by the uuid wallet_id: an existing wallet of the tenant is accepted, anything else refused. */
let table: TestTable;

beforeAll(async () => {
  table = await startTestTable();
  await putFixedRates();
});

afterAll(async () => {
  await table?.stop();
});

it('creates a payment for an existing wallet of the tenant and refuses unknown, deleted or foreign ones', async () => {
  // A deployment serving ETH payments: a factory, an RPC endpoint (never dialled here) and the token contracts.
  const cfg = servingEth();
  const payments = createApi(paymentRoutes, paymentsRuntime(cfg));
  const wallets = createApi(walletRoutes, walletsRuntime(cfg));
  const a = await tenantWithToken('Wallet payments A');
  const b = await tenantWithToken('Wallet payments B');
  const payA = caller(payments, () => a.bearer);
  const payB = caller(payments, () => b.bearer);
  const walletsA = caller(wallets, () => a.bearer);
  const wallet = (await walletsA('POST', '/wallets/', { body: { name: 'Seller' } })).body;
  const spare = (await walletsA('POST', '/wallets/', { body: { name: 'Spare' } })).body;

  const paid = await payA('POST', '/payments/', { body: { amount: '20', currency: 'USDTERC20', wallet_id: wallet.wallet_id } });
  expect([paid.status, paid.body.wallet_id]).toEqual([201, wallet.wallet_id]);

  expect((await walletsA('DELETE', `/wallets/${spare.id}/`)).status).toBe(204);
  for (const [pay, walletId] of [
    [payA, spare.wallet_id],
    [payA, 'no-such-wallet'],
    [payB, wallet.wallet_id],
  ] as const) {
    const refused = await pay('POST', '/payments/', { body: { amount: '20', currency: 'USDTERC20', wallet_id: walletId } });
    expect([refused.status, refused.body.error.code, Object.keys(refused.body.error.details)]).toEqual([400, 'invalid_request', ['wallet_id']]);
  }
});
