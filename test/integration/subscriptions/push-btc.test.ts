import { resetConfig } from '../../../shared/config/config.js';
import type { Config } from '../../../shared/config/config.js';
import { toBaseUnits } from '../../../shared/domain/money.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { transition } from '../../../shared/domain/payments.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { subscriptionsRuntime } from '../../../shared/runtime/subscriptions.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { dynamoTenantClocks } from '../../../shared/store/subscriptions.js';
import { completePayment } from '../../../shared/usecases/payments/settle.js';
import { advanceDue } from '../../../shared/usecases/subscriptions/advance.js';
import { startHotWalletKey, type HotWalletKey } from '../../support/btc-payments.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { aDeposit } from '../../support/fixtures/payments.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import { routedApi } from '../refunds/support.js';

/**
 * A push subscription billed in Bitcoin: each period opens an ordinary BTC payment (its own P2WSH deposit address
 * on the hot wallet's key, the amount at the rate of the moment), and the payment's completion renews the
 * subscription as any currency's does.
 */
const DAY = 86_400_000;
const ORIGIN = 'https://pay.example.com';
const TXID = 'ab'.repeat(32);

let table: TestTable;
let hot: HotWalletKey;
let cfg: Config;
let a: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
const clocks = dynamoTenantClocks(true);

beforeAll(async () => {
  table = await startTestTable();
  hot = await startHotWalletKey();
  resetConfig();
  await putFixedRates();
  cfg = servingEth({ PUBLIC_BASE_URL: ORIGIN, STAGE: 'test', HOT_WALLET_KEY_ID: hot.keyId, BTC_API_URL: 'http://127.0.0.1:9/' });
  a = await tenantWithToken('Subscriptions in BTC');
  call = caller(routedApi(cfg, ['subscriptions', 'payments']), () => a.bearer);
});

afterAll(async () => {
  await hot?.close();
  await table?.stop();
});

/** Pays a BTC payment in full and completes it, as the Bitcoin scanner and its coin sweep save it. */
async function pay(paymentId: string): Promise<PaymentState> {
  let p = (await dynamoPayments.get(a.tenantId, paymentId)) as PaymentState;
  const now = new Date();
  const deposit = {
    ...aDeposit(p.id, '0', {}, now),
    currency: 'BTC' as const,
    amount: p.amountCrypto,
    amountBase: toBaseUnits(p.amountCrypto, 8).toString(),
    txHash: TXID,
  };
  p = await dynamoPayments.save(p, transition(p, { kind: 'deposit', deposit }, now), now);
  p = await dynamoPayments.save(
    p,
    transition(p, { kind: 'confirmations', byDeposit: { [deposit.id]: 2 }, confirmationsNeeded: 2, tolerancePercent: '0' }, now),
    now,
  );
  p = await dynamoPayments.save(p, transition(p, { kind: 'sweep_started' }, now), now);
  return completePayment(p, TXID, paymentsRuntime(cfg), now);
}

describe('a push subscription in BTC', () => {
  it('opens a BTC payment each period at its own deposit address and renews when it completes', async () => {
    const plan = await call('POST', '/plans/', { body: { name: 'Monthly in BTC', amount: '120', price_currency: 'USD', currency: 'BTC', interval: 'month' } });
    expect([plan.status, plan.body.currency]).toEqual([201, 'BTC']);
    const made = await call('POST', '/subscriptions/', { body: { plan_id: plan.body.id, customer_reference: 'btc-1', collection: 'push' } });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    const first = await call('GET', `/payments/${made.body.setup.payment_id}/`);
    // 120 USD at the fixed rate of 60,000 USD a bitcoin, on a P2WSH address of the hot wallet's key (testnet outside production).
    expect(first.body).toMatchObject({ currency: 'BTC', blockchain: 'BTC', price_amount: '120', subscription_id: id, subscription_cycle: 0 });
    expect(first.body.address).toMatch(/^tb1q[0-9a-z]{58}$/);
    expect(first.body.amount_crypto).toMatch(/^0\.00200/);

    expect((await pay(first.body.transaction_id)).status).toBe('completed');
    await advanceDue(new Date(), subscriptionsRuntime(cfg), ORIGIN);
    expect((await call('GET', `/subscriptions/${id}/`)).body.status).toBe('active');

    // The next period: a new BTC payment, at another address.
    const end = (await call('GET', `/subscriptions/${id}/`)).body.current_period_end as string;
    await clocks.set(a.tenantId, Math.max(0, Date.parse(end) + 0.01 * DAY - Date.now()));
    await advanceDue(new Date(), subscriptionsRuntime(cfg), ORIGIN);
    const renewed = await call('GET', `/subscriptions/${id}/`);
    const second = await call('GET', `/payments/${renewed.body.setup.payment_id}/`);
    expect(second.body).toMatchObject({ currency: 'BTC', subscription_id: id, subscription_cycle: 1 });
    expect(second.body.address).not.toBe(first.body.address);
    await pay(second.body.transaction_id);
    await advanceDue(new Date(), subscriptionsRuntime(cfg), ORIGIN);
    const cycles = (await call('GET', `/subscriptions/${id}/cycles/`)).body.results as Array<Record<string, unknown>>;
    expect(cycles.map((c) => c.status)).toEqual(['paid', 'paid']);
    await clocks.set(a.tenantId, 0);
  });
});
