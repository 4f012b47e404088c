import { resetConfig } from '../../../shared/config/config.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { add, sub } from '../../../shared/domain/money.js';
import type { WithdrawalState } from '../../../shared/domain/withdrawals.js';
import { transition as withdrawalTransition } from '../../../shared/domain/withdrawals.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { dynamoRefunds } from '../../../shared/store/refunds.js';
import { dynamoWithdrawals } from '../../../shared/store/withdrawals.js';
import { followingRefunds } from '../../../shared/usecases/refunds/payout.js';
import { refundsRuntime } from '../../../shared/runtime/refunds.js';
import type { RefundsDeps } from '../../../shared/usecases/refunds/ports.js';
import { setRefundAddress } from '../../../shared/usecases/refunds/refunds.js';
import { settleWithdrawal } from '../../../shared/usecases/withdrawals/settle.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import type { Handler } from '../payments/support.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import type { Merchant } from './support.js';
import { paid as paidPayment, routedApi } from './support.js';

/**
 * Refunds paid out through the withdrawal engine, on DynamoDB Local over the payments, refunds and withdrawals
 * Lambdas' handlers: a refund with an address is created with its withdrawal in ONE transaction and ONE hold; the
 * withdrawal's dispatch, completion and failure carry the refund along in their own transactions; cancelling the
 * refund cancels both, the hold released once (the withdrawal alone is not cancelled).
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let table: TestTable;
let a: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let refundDeps: RefundsDeps;
/** The withdrawal repository as the batcher and the chain results use it: refunds follow their withdrawals. */
const withdrawals = followingRefunds(dynamoWithdrawals, dynamoRefunds);

beforeAll(async () => {
  table = await startTestTable();
  resetConfig();
  await putFixedRates();
  a = await tenantWithToken('Refund payouts');
  const cfg = servingEth({ PUBLIC_BASE_URL: 'https://pay.example.com', HOT_WALLET_KEY_ID: 'hot-wallet-key' });
  refundDeps = refundsRuntime(cfg);
  const handler: Handler = routedApi(cfg, ['payments', 'refunds', 'withdrawals']);
  call = caller(handler, () => a.bearer);
});

afterAll(async () => {
  await table?.stop();
});

/** A 100 USDTERC20 payment (1 % fee, the merchant's) that received `got` and completed: credited `got - 1`. */
const paid = (got: string, who: Merchant = { tenantId: a.tenantId, call }): Promise<PaymentState> => paidPayment(who, got);

const usdt = () => getBalance(a.tenantId, 'main', 'USDTERC20');

/** Refunds the 20 excess of a payment that received 120 for 100 to DEST: its refund record and its withdrawal. */
async function refunded(): Promise<{ p: PaymentState; refundId: string; w: WithdrawalState; before: Awaited<ReturnType<typeof usdt>> }> {
  const p = await paid('120');
  const before = await usdt();
  const res = await call('POST', `/payments/${p.id}/refunds/`, { body: { address: DEST } });
  expect([res.status, res.body.status, res.body.amount]).toEqual([201, 'pending', '20']);
  const refund = await dynamoRefunds.get(a.tenantId, res.body.id as string);
  const w = await dynamoWithdrawals.get(a.tenantId, refund?.withdrawalId ?? 'none');
  if (!w) throw new Error('the refund has no withdrawal');
  return { p, refundId: res.body.id as string, w, before };
}

const refundOf = async (id: string) => (await call('GET', `/refunds/${id}/`)).body;
const dispatched = async (w: WithdrawalState) => withdrawals.save(w, withdrawalTransition(w, { kind: 'dispatched' }, new Date()), new Date());

it('a refund with an address is created with its withdrawal: amount - network fee sent, the amount deducted, held once', async () => {
  const { refundId, w, before } = await refunded();
  expect(w).toMatchObject({
    status: 'pending',
    refundId,
    amount: '17',
    networkFee: '3',
    platformFee: '0',
    totalDeducted: '20',
    address: DEST,
    accountId: null,
  });
  // One hold of the refund's amount: the withdrawal holds nothing of its own.
  expect(await usdt()).toMatchObject({ amount: sub(before.amount, '20'), locked: add(before.locked, '20') });
});

it("the withdrawal's dispatch and completion carry the refund: processing, then completed with transaction_hash, network_fee, amount_sent", async () => {
  const { p, refundId, w, before } = await refunded();
  const sent = await dispatched(w);
  expect((await refundOf(refundId)).status).toBe('processing');
  await settleWithdrawal(sent, { ok: true, txHash: '0xrefundtx' }, new Date(), { withdrawals });
  expect(await refundOf(refundId)).toMatchObject({ status: 'completed', transaction_hash: '0xrefundtx', amount: '20', network_fee: '3', amount_sent: '17' });
  // Charged exactly the refund's amount, nothing left held; the payment shows it refunded.
  expect(await usdt()).toMatchObject({ amount: sub(before.amount, '20'), locked: before.locked });
  expect((await call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '20' });
});

it('a chain that took less than the fee held: the refund is what was charged, the rest back and refundable again', async () => {
  const { p, refundId, w, before } = await refunded();
  await settleWithdrawal(await dispatched(w), { ok: true, txHash: '0xcheap', networkFee: '1' }, new Date(), { withdrawals });
  expect(await refundOf(refundId)).toMatchObject({ status: 'completed', amount: '18', network_fee: '1', amount_sent: '17' });
  expect(await usdt()).toMatchObject({ amount: sub(before.amount, '18'), locked: before.locked });
  expect((await call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '18' });
});

it("the withdrawal's failure fails the refund and releases the hold exactly once; the amount is refundable again", async () => {
  const { p, refundId, w, before } = await refunded();
  const sent = await dispatched(w);
  const failed = await settleWithdrawal(sent, { ok: false, reason: 'reverted' }, new Date(), { withdrawals });
  expect(await refundOf(refundId)).toMatchObject({ status: 'failed' });
  expect(await usdt()).toEqual(before);
  // A second result changes nothing.
  await settleWithdrawal(failed, { ok: false, reason: 'reverted' }, new Date(), { withdrawals });
  await expect(settleWithdrawal(sent, { ok: false, reason: 'reverted again' }, new Date(), { withdrawals })).rejects.toThrow();
  expect(await usdt()).toEqual(before);
  expect((await call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '0' });
});

it('cancelling a pending refund cancels its withdrawal in the same transaction, the hold released once', async () => {
  const { p, refundId, w, before } = await refunded();
  const res = await call('POST', `/refunds/${refundId}/cancel/`);
  expect([res.status, res.body.status]).toEqual([200, 'cancelled']);
  expect(await dynamoWithdrawals.get(a.tenantId, w.id)).toMatchObject({ status: 'cancelled' });
  expect(await usdt()).toEqual(before);
  expect((await call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '0' });
  expect((await call('POST', `/withdrawal/${w.id}/cancel/`)).status).toBe(409);
  expect(await usdt()).toEqual(before);
});

it("a refund's withdrawal is cancelled only with its refund (409 at the withdrawal); a processing refund cannot be cancelled", async () => {
  const first = await refunded();
  const res = await call('POST', `/withdrawal/${first.w.id}/cancel/`);
  expect([res.status, res.body.error?.code, res.body.error?.details?.refund_id]).toEqual([409, 'invalid_state', first.refundId]);
  expect((await refundOf(first.refundId)).status).toBe('pending');
  expect((await dynamoWithdrawals.get(a.tenantId, first.w.id))?.status).toBe('pending');
  expect(await usdt()).toMatchObject({ amount: sub(first.before.amount, '20'), locked: add(first.before.locked, '20') });
  const second = await refunded();
  await dispatched(second.w);
  const refused = await call('POST', `/refunds/${second.refundId}/cancel/`);
  expect([refused.status, refused.body.error?.code]).toEqual([409, 'invalid_state']);
  expect((await dynamoWithdrawals.get(a.tenantId, second.w.id))?.status).toBe('processing');
});

it('a claim refund that gets its address becomes pending with its withdrawal in one transaction, its fee re-priced; only once', async () => {
  const p = await paid('120');
  const before = await usdt();
  const made = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '20' } });
  expect([made.status, made.body.status]).toEqual([201, 'awaiting_address']);
  const id = made.body.id as string;
  const bad = setRefundAddress({ tenantId: a.tenantId, refundId: id, address: 'TNotAnEthAddress', memo: null, now: new Date() }, refundDeps);
  await expect(bad).rejects.toMatchObject({ code: 'invalid_address' });
  const set = await setRefundAddress({ tenantId: a.tenantId, refundId: id, address: DEST, memo: null, now: new Date() }, refundDeps);
  expect(set).toMatchObject({ status: 'pending', address: DEST, claimToken: null, networkFee: '3' });
  const w = await dynamoWithdrawals.get(a.tenantId, set.withdrawalId ?? 'none');
  expect(w).toMatchObject({ status: 'pending', refundId: id, amount: '17', totalDeducted: '20', address: DEST });
  // Still the one hold of the refund's amount.
  expect(await usdt()).toMatchObject({ amount: sub(before.amount, '20'), locked: add(before.locked, '20') });
  const again = setRefundAddress({ tenantId: a.tenantId, refundId: id, address: DEST, memo: null, now: new Date() }, refundDeps);
  await expect(again).rejects.toMatchObject({ code: 'invalid_state' });
});
