import { resetConfig } from '../../../shared/config/config.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { add, sub } from '../../../shared/domain/money.js';
import { debitEntry } from '../../../shared/domain/ledger.js';
import { getBalance, postEntry } from '../../../shared/store/ledger.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { outboxChanges } from '../../support/outbox.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import type { Handler } from '../payments/support.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import type { Merchant } from './support.js';
import { paid as paidPayment, paymentOf, routedApi } from './support.js';

/**
 * The refund endpoints over the payments Lambda's handler on DynamoDB Local: what is refundable, creation with and
 * without an address (claim link), the Idempotency-Key, the reads, cancel releasing the hold, and every refusal in the
 * error envelope.
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let table: TestTable;
let a: { tenantId: string; bearer: string };
let b: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let callB: ReturnType<typeof caller>;
let handler: Handler;

beforeAll(async () => {
  table = await startTestTable();
  resetConfig();
  await putFixedRates();
  a = await tenantWithToken('Refunds A');
  b = await tenantWithToken('Refunds B');
  // The payments and refunds Lambdas, as API Gateway routes to them (infra/definition.ts).
  handler = routedApi(servingEth({ PUBLIC_BASE_URL: 'https://pay.example.com', HOT_WALLET_KEY_ID: 'hot-wallet-key' }), ['payments', 'refunds']);
  call = caller(handler, () => a.bearer);
  callB = caller(handler, () => b.bearer);
});

afterAll(async () => {
  await table?.stop();
});

/** A 100 USDTERC20 payment of tenant A (1 % fee, the merchant's) that received `got` and completed: credited `got - 1`. */
const paid = (got: string, who: Merchant = { tenantId: a.tenantId, call }): Promise<PaymentState> => paidPayment(who, got);

const usdt = () => getBalance(a.tenantId, 'main', 'USDTERC20');

/** A 100 USDTERC20 payment of a merchant of its own that received `got` of it, confirmed: partially paid. */
async function partiallyPaid(got: string): Promise<{ p: PaymentState; call: ReturnType<typeof caller>; tenantId: string }> {
  const t = await tenantWithToken(`Partial ${got}`);
  const callT = caller(handler, () => t.bearer);
  const p = await paymentOf({ tenantId: t.tenantId, call: callT }, got, 'confirmed');
  expect(p.status).toBe('partially_paid');
  return { p, call: callT, tenantId: t.tenantId };
}

/** The payment with its expiry passed. */
const expire = (p: PaymentState) =>
  dynamoPayments.save(p, { state: { ...p, expiryTime: new Date(Date.now() - 1000).toISOString() }, events: [], effects: [] }, new Date());

describe('GET /payments/{id}/refundable/', () => {
  it("answers the payment's credit less its refunds, the network fee and the smallest refund, as strings", async () => {
    const p = await paid('120');
    const res = await call('GET', `/payments/${p.id}/refundable/`);
    expect([res.status, res.body]).toEqual([
      200,
      { currency: 'USDTERC20', received: '120', refunded: '0', refundable: '119', estimated_network_fee: '3', minimum: '13' },
    ]);
  });

  it('404 in the envelope for an unknown payment, a malformed id, or another tenant', async () => {
    const p = await paid('100');
    for (const [res, what] of [
      [await call('GET', '/payments/5f0c6f0e-8a3b-4c55-9e1a-0d6f4c2b7a10/refundable/'), 'unknown'],
      [await call('GET', '/payments/nope/refundable/'), 'malformed'],
      [await callB('GET', `/payments/${p.id}/refundable/`), 'foreign'],
    ] as const) {
      expect([what, res.status, res.body.error.code]).toEqual([what, 404, 'not_found']);
    }
  });

  it('an open payment is not refundable: 0 here, 409 invalid_state on creation', async () => {
    const res = await call('POST', '/payments/', { body: { amount: '100', currency: 'USDTERC20' } });
    const id = res.body.transaction_id as string;
    expect((await call('GET', `/payments/${id}/refundable/`)).body).toMatchObject({ received: '0', refundable: '0' });
    const refused = await call('POST', `/payments/${id}/refunds/`, { body: { address: DEST } });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'invalid_state']);
    expect(refused.body.error.message).toMatch(/waiting payment was not credited/);
  });
});

describe('POST /payments/{id}/refunds/', () => {
  it("with an address: pending at once, the overpayment's excess by default, held from the balance", async () => {
    const p = await paid('120');
    const before = await usdt();
    const res = await call('POST', `/payments/${p.id}/refunds/`, { body: { address: DEST, reason: 'overpaid' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      payment_id: p.id,
      status: 'pending',
      currency: 'USDTERC20',
      amount: '20',
      network_fee: '3',
      amount_sent: null,
      address: DEST,
      claim_url: null,
      claim_expires_at: null,
      transaction_hash: null,
      reason: 'overpaid',
    });
    const after = await usdt();
    expect([after.amount, after.locked]).toEqual([sub(before.amount, '20'), add(before.locked, '20')]);
    expect((await call('GET', `/refunds/${res.body.id as string}/`)).body).toEqual(res.body);
    expect((await call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '20', refundable: '99' });
    // The payment record shows it; the interface's fields stay as they are.
    const record = await call('GET', `/payments/${p.id}/`);
    expect(record.body).toMatchObject({ status: 'completed', merchant_received: '119', refunded_amount: '20' });
  });

  it('without an address: awaiting_address with a claim link on the public origin, valid 72 hours', async () => {
    const p = await paid('100');
    const res = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '50' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'awaiting_address', amount: '50', address: null });
    expect(res.body.claim_url).toMatch(/^https:\/\/pay\.example\.com\/refund-claims\/[A-Za-z0-9_-]{22}$/);
    expect(Date.parse(res.body.claim_expires_at as string) - Date.parse(res.body.created_at as string)).toBe(72 * 3600_000);
    // refund.created and refund_status_update carry the same link, for the merchant to hand on.
    const events = (await outboxChanges(`refund:${res.body.id as string}:`)).flat();
    expect(events.map((e) => e.type).sort()).toEqual(['refund.created', 'refund_status_update']);
    for (const e of events) expect(e.payload).toMatchObject({ status: 'awaiting_address', claim_url: res.body.claim_url });
  });

  it('honours the Idempotency-Key: the same answer, one refund, one hold; another body with the key is 422', async () => {
    const p = await paid('100');
    const headers = { 'idempotency-key': `refund-${p.id}` };
    const before = await usdt();
    const first = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '20', address: DEST }, headers });
    const second = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '20', address: DEST }, headers });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body).toEqual(first.body);
    expect((await call('GET', `/payments/${p.id}/refunds/`)).body.results).toHaveLength(1);
    expect((await usdt()).locked).toBe(add(before.locked, '20'));
    const other = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '21', address: DEST }, headers });
    expect([other.status, other.body.error.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('refuses, in the envelope: more than refundable, a bad amount, a bad address, a net below the minimum, an unknown field type', async () => {
    const p = await paid('100');
    const cases: [unknown, number, string, Record<string, unknown>?][] = [
      [{ amount: '99.000001', address: DEST }, 400, 'invalid_request', { refundable: '99' }],
      [{ amount: '-1', address: DEST }, 400, 'invalid_request'],
      [{ amount: 'ten', address: DEST }, 400, 'invalid_request'],
      [{ amount: '20.0000001', address: DEST }, 400, 'invalid_request'],
      [{ amount: '20', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' }, 400, 'invalid_address'],
      [{ amount: '20', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }, 400, 'invalid_address'],
      [{ amount: '12.99', address: DEST }, 422, 'below_minimum', { minimum: '13', network_fee: '3', currency: 'USDTERC20' }],
      [{ amount: '20', address: 42 }, 400, 'invalid_request'],
    ];
    for (const [body, status, code, details] of cases) {
      const res = await call('POST', `/payments/${p.id}/refunds/`, { body });
      expect([JSON.stringify(body), res.status, res.body.error.code]).toEqual([JSON.stringify(body), status, code]);
      if (details) expect(res.body.error.details).toMatchObject(details);
    }
    expect((await call('GET', `/payments/${p.id}/refunds/`)).body.results).toEqual([]);
  });

  it('refuses a refund the available balance cannot cover (insufficient_balance), writing nothing', async () => {
    // A merchant of its own: its balance is the 99 credited for one payment, 90 of which it spent since.
    const c = await tenantWithToken('Refunds C');
    const callC = caller(handler, () => c.bearer);
    const p = await paid('100', { tenantId: c.tenantId, call: callC });
    const spent = debitEntry({ type: 'adjustment', account: 'main', currency: 'USDTERC20', amount: '90', reason: 'spent elsewhere' });
    await postEntry({ tenantId: c.tenantId, entryId: `spent:${p.id}`, entry: spent, now: new Date() });
    const res = await callC('POST', `/payments/${p.id}/refunds/`, { body: { amount: '20', address: DEST } });
    expect([res.status, res.body.error.code]).toEqual([400, 'insufficient_balance']);
    expect(res.body.error.details).toMatchObject({ available: '9', requested: '20', currency: 'USDTERC20' });
    expect((await callC('GET', `/payments/${p.id}/refunds/`)).body.results).toEqual([]);
    expect((await callC('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '0', refundable: '99' });
    expect(await getBalance(c.tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '9', locked: '0' });
  });
});

describe('a payment left partially paid', () => {
  it('is not refundable while it may still be paid in full: 0, and 409 invalid_state saying when it will be', async () => {
    const { p, call: callT } = await partiallyPaid('40');
    expect((await callT('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ received: '40', refundable: '0' });
    const refused = await callT('POST', `/payments/${p.id}/refunds/`, { body: { address: DEST } });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'invalid_state']);
    expect(refused.body.error.message).toMatch(/once it has expired/);
  });

  it('past its expiry, its first refund settles it in one transaction: failed, its deposits credited less the fee, the refund held', async () => {
    const { p, call: callT, tenantId } = await partiallyPaid('40');
    await expire((await dynamoPayments.get(tenantId, p.id)) as PaymentState);
    expect((await callT('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ received: '40', refunded: '0', refundable: '39' });
    // Never credited: the merchant's balance has nothing of it yet.
    expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '0', locked: '0' });
    const res = await callT('POST', `/payments/${p.id}/refunds/`, { body: { amount: '20', address: DEST } });
    expect([res.status, res.body.status, res.body.amount]).toEqual([201, 'pending', '20']);
    expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '19', locked: '20' });
    const payment = await callT('GET', `/payments/${p.id}/`);
    expect([payment.body.status, payment.body.refunded_amount]).toEqual(['failed', '20']);
    // From then on an ordinary refund of the credit: 19 left, then nothing.
    expect((await callT('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '20', refundable: '19' });
    const rest = await callT('POST', `/payments/${p.id}/refunds/`, { body: { address: DEST } });
    expect([rest.status, rest.body.amount]).toEqual([201, '19']);
    expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '0', locked: '39' });
    const more = await callT('POST', `/payments/${p.id}/refunds/`, { body: { amount: '1', address: DEST } });
    expect([more.status, more.body.error.code]).toEqual([409, 'invalid_state']);
    // Cancelling the first gives its 20 back to the balance: the merchant keeps what it does not refund.
    expect((await callT('POST', `/refunds/${res.body.id as string}/cancel/`)).status).toBe(200);
    expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '20', locked: '19' });
  });

  it('a refused settling refund writes nothing: the payment stays partially paid and uncredited', async () => {
    const { p, call: callT, tenantId } = await partiallyPaid('40');
    await expire((await dynamoPayments.get(tenantId, p.id)) as PaymentState);
    const res = await callT('POST', `/payments/${p.id}/refunds/`, { body: { amount: '39.01', address: DEST } });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_request']);
    expect((await dynamoPayments.get(tenantId, p.id))?.status).toBe('partially_paid');
    expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '0', locked: '0' });
  });
});

describe('the race', () => {
  it('twenty concurrent POSTs of a quarter of what the payment received (100; credited 99): three accepted and held, seventeen refused in the envelope', async () => {
    const p = await paid('100');
    const before = await usdt();
    const answers = await Promise.all(Array.from({ length: 20 }, () => call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '25', address: DEST } })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((x) => x === 201)).toHaveLength(3);
    expect(answers.filter((r) => r.status !== 201).map((r) => [r.status, r.body.error.code])).toEqual(
      Array.from({ length: 17 }, () => [400, 'invalid_request']),
    );
    expect((await usdt()).locked).toBe(add(before.locked, '75'));
    expect((await call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '75', refundable: '24' });
    expect((await call('GET', `/payments/${p.id}/refunds/`)).body.results).toHaveLength(3);
  });
});

describe('a deployment that does not pay out on the network', () => {
  it('refuses the refund up front: 400 unsupported_blockchain, nothing held', async () => {
    const p = await paid('100');
    const notPaying = caller(routedApi(servingEth(), ['refunds']), () => a.bearer);
    const res = await notPaying('POST', `/payments/${p.id}/refunds/`, { body: { amount: '20', address: DEST } });
    expect([res.status, res.body.error.code, res.body.error.details]).toEqual([400, 'unsupported_blockchain', { blockchain: 'ETH' }]);
    expect((await call('GET', `/payments/${p.id}/refunds/`)).body.results).toEqual([]);
  });
});

describe('GET /payments/{id}/refunds/, GET /refunds/{id}/', () => {
  it("lists a payment's refunds oldest first; another tenant's refund is 404", async () => {
    const p = await paid('100');
    const one = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '20', address: DEST } });
    const two = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '30' } });
    const list = await call('GET', `/payments/${p.id}/refunds/`);
    expect(list.status).toBe(200);
    expect(list.body.results.map((r: { id: string }) => r.id)).toEqual([one.body.id, two.body.id]);
    const foreign = await callB('GET', `/refunds/${one.body.id as string}/`);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    expect((await callB('GET', `/payments/${p.id}/refunds/`)).status).toBe(404);
    expect((await call('GET', '/refunds/not-a-uuid/')).status).toBe(404);
  });
});

describe('POST /refunds/{id}/cancel/', () => {
  it('cancels until processing: the hold is released and the amount is refundable again; a second cancel is 409', async () => {
    const p = await paid('100');
    const before = await usdt();
    const made = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '99', address: DEST } });
    expect((await usdt()).locked).toBe(add(before.locked, '99'));
    const cancelled = await call('POST', `/refunds/${made.body.id as string}/cancel/`);
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
    expect(await usdt()).toEqual(before);
    expect((await call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '0', refundable: '99' });
    expect((await call('GET', `/payments/${p.id}/`)).body.refunded_amount).toBe('0');
    // The same cancel with its Idempotency-Key again is the same answer; without it, a second cancel is refused.
    const key = { 'idempotency-key': `cancel-${made.body.id as string}` };
    const made2 = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '30' } });
    const c1 = await call('POST', `/refunds/${made2.body.id as string}/cancel/`, { headers: key });
    const c2 = await call('POST', `/refunds/${made2.body.id as string}/cancel/`, { headers: key });
    expect([c1.status, c2.status, c2.body]).toEqual([200, 200, c1.body]);
    expect(await usdt()).toEqual(before);
    const again = await call('POST', `/refunds/${made.body.id as string}/cancel/`);
    expect([again.status, again.body.error.code]).toEqual([409, 'invalid_state']);
    expect((await callB('POST', `/refunds/${made.body.id as string}/cancel/`)).status).toBe(404);
  });
});
