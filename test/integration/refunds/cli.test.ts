import { jest } from '@jest/globals';
import { main } from '../../../scripts/gateway.js';
import { resetConfig } from '../../../shared/config/config.js';
import { add, sub } from '../../../shared/domain/money.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { transition as withdrawalTransition } from '../../../shared/domain/withdrawals.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { dynamoRefunds } from '../../../shared/store/refunds.js';
import { dynamoWithdrawals } from '../../../shared/store/withdrawals.js';
import { followingRefunds } from '../../../shared/usecases/refunds/payout.js';
import { settleWithdrawal } from '../../../shared/usecases/withdrawals/settle.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import type { Handler } from '../payments/support.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import type { Merchant } from './support.js';
import { paid as paidPayment, routedApi } from './support.js';

/**
 * The operator CLI's refund commands on DynamoDB Local, beside the refund endpoints: `refund list` (a tenant's
 * refunds newest first, by status or payment, page by page, never another tenant's), `refund show`, and
 * `refund cancel` through the API's use case (the hold released, the amount refundable again; a refund past pending
 * refused with invalid_state and a non-zero exit).
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let table: TestTable;
let a: { tenantId: string; bearer: string };
let b: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let callB: ReturnType<typeof caller>;
const publicBaseUrl = process.env.PUBLIC_BASE_URL;
/** The withdrawal repository as the batcher and the chain results use it: refunds follow their withdrawals. */
const withdrawals = followingRefunds(dynamoWithdrawals, dynamoRefunds);

beforeAll(async () => {
  table = await startTestTable();
  // The CLI reads its configuration from the environment: claim links on this origin.
  process.env.PUBLIC_BASE_URL = 'https://pay.example.com';
  resetConfig();
  await putFixedRates();
  a = await tenantWithToken('Refund CLI A');
  b = await tenantWithToken('Refund CLI B');
  const handler: Handler = routedApi(servingEth({ HOT_WALLET_KEY_ID: 'hot-wallet-key' }), ['payments', 'refunds']);
  call = caller(handler, () => a.bearer);
  callB = caller(handler, () => b.bearer);
});

afterAll(async () => {
  if (publicBaseUrl === undefined) delete process.env.PUBLIC_BASE_URL;
  else process.env.PUBLIC_BASE_URL = publicBaseUrl;
  resetConfig();
  await table?.stop();
});

/** A 100 USDTERC20 payment (1 % fee, the merchant's) that received `got` and completed: credited `got - 1`. */
const paid = (got: string, who: Merchant = { tenantId: a.tenantId, call }): Promise<PaymentState> => paidPayment(who, got);

const usdt = () => getBalance(a.tenantId, 'main', 'USDTERC20');

/** Runs the CLI: its exit code, what it printed and what it printed as errors. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((text: string) => void out.push(text));
  const error = jest.spyOn(console, 'error').mockImplementation((text: string) => void err.push(text));
  try {
    const code = await main(args);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** `refund list ... --json`: the ids listed and the cursor. */
async function listed(...args: string[]): Promise<{ ids: string[]; cursor: string | null }> {
  const res = await cli('refund', 'list', ...args, '--json');
  expect([res.code, res.err]).toEqual([0, '']);
  const page = JSON.parse(res.out) as { results: { id: string }[]; cursor: string | null };
  return { ids: page.results.map((r) => r.id), cursor: page.cursor };
}

describe('refund list, refund show', () => {
  let p1: PaymentState;
  let p2: PaymentState;
  type Shown = { id: string; [field: string]: unknown };
  let pending: Shown;
  let claim1: Shown;
  let claim2: Shown;
  let foreign: string;

  beforeAll(async () => {
    p1 = await paid('120');
    p2 = await paid('100');
    const made = [
      await call('POST', `/payments/${p1.id}/refunds/`, { body: { address: DEST } }),
      await call('POST', `/payments/${p2.id}/refunds/`, { body: { amount: '30' } }),
      await call('POST', `/payments/${p2.id}/refunds/`, { body: { amount: '20', reason: 'damaged' } }),
    ];
    expect(made.map((r) => [r.status, r.body.status])).toEqual([
      [201, 'pending'],
      [201, 'awaiting_address'],
      [201, 'awaiting_address'],
    ]);
    [pending, claim1, claim2] = made.map((r) => r.body as Shown) as [Shown, Shown, Shown];
    const pb = await paid('100', { tenantId: b.tenantId, call: callB });
    const other = await callB('POST', `/payments/${pb.id}/refunds/`, { body: { amount: '20' } });
    expect(other.status).toBe(201);
    foreign = other.body.id as string;
  });

  it("lists the tenant's refunds newest first, one line each, never another tenant's", async () => {
    expect((await listed('--tenant', a.tenantId)).ids).toEqual([claim2.id, claim1.id, pending.id]);
    expect((await listed('--tenant', b.tenantId)).ids).toEqual([foreign]);
    const text = await cli('refund', 'list', '--tenant', a.tenantId);
    expect(text.code).toBe(0);
    expect(text.out.split('\n')).toEqual([
      `${claim2.id}  awaiting_address  20 USDTERC20  payment ${p2.id}  ${claim2.created_at as string}`,
      `${claim1.id}  awaiting_address  30 USDTERC20  payment ${p2.id}  ${claim1.created_at as string}`,
      `${pending.id}  pending           20 USDTERC20  payment ${p1.id}  ${pending.created_at as string}`,
    ]);
  });

  it('filters by status and by payment; both together', async () => {
    expect((await listed('--tenant', a.tenantId, '--status', 'awaiting_address')).ids).toEqual([claim2.id, claim1.id]);
    expect((await listed('--tenant', a.tenantId, '--status', 'pending')).ids).toEqual([pending.id]);
    expect((await listed('--tenant', a.tenantId, '--status', 'completed')).ids).toEqual([]);
    expect((await listed('--tenant', a.tenantId, '--payment', p1.id)).ids).toEqual([pending.id]);
    expect((await listed('--tenant', a.tenantId, '--payment', p2.id)).ids).toEqual([claim2.id, claim1.id]);
    expect((await listed('--tenant', a.tenantId, '--payment', p2.id, '--status', 'pending')).ids).toEqual([]);
    // Another tenant's payment is not found.
    const foreignPayment = await cli('refund', 'list', '--tenant', b.tenantId, '--payment', p1.id);
    expect([foreignPayment.code, foreignPayment.err]).toEqual([1, expect.stringContaining('not_found')]);
  });

  it('pages with --limit and --cursor, the tenant index and one payment alike', async () => {
    const first = await listed('--tenant', a.tenantId, '--limit', '2');
    expect(first.ids).toEqual([claim2.id, claim1.id]);
    expect(first.cursor).toEqual(expect.any(String));
    const second = await listed('--tenant', a.tenantId, '--limit', '2', '--cursor', first.cursor ?? '');
    expect(second).toEqual({ ids: [pending.id], cursor: null });
    // A filtered page continues after the refund it ended with.
    const claims = await listed('--tenant', a.tenantId, '--status', 'awaiting_address', '--limit', '1');
    expect(claims.ids).toEqual([claim2.id]);
    expect(await listed('--tenant', a.tenantId, '--status', 'awaiting_address', '--limit', '1', '--cursor', claims.cursor ?? '')).toEqual({
      ids: [claim1.id],
      cursor: null,
    });
    const ofPayment = await listed('--tenant', a.tenantId, '--payment', p2.id, '--limit', '1');
    expect(ofPayment.ids).toEqual([claim2.id]);
    expect(await listed('--tenant', a.tenantId, '--payment', p2.id, '--cursor', ofPayment.cursor ?? '')).toEqual({ ids: [claim1.id], cursor: null });
    const text = await cli('refund', 'list', '--tenant', a.tenantId, '--limit', '2');
    expect(text.out.split('\n').at(-1)).toBe(`more: --cursor ${first.cursor ?? ''}`);
  });

  it('refuses a bad status, limit or cursor', async () => {
    const status = await cli('refund', 'list', '--tenant', a.tenantId, '--status', 'refunded');
    expect([status.code, status.err]).toEqual([1, expect.stringMatching(/^invalid_request: .*"status"/)]);
    const limit = await cli('refund', 'list', '--tenant', a.tenantId, '--limit', '0');
    expect([limit.code, limit.err]).toEqual([1, expect.stringMatching(/^invalid_request: .*"limit"/)]);
    const cursor = await cli('refund', 'list', '--tenant', a.tenantId, '--cursor', 'not-a-cursor');
    expect([cursor.code, cursor.err]).toEqual([1, expect.stringMatching(/^invalid_request: .*"cursor"/)]);
    const tenant = await cli('refund', 'list');
    expect([tenant.code, tenant.err]).toEqual([2, expect.stringContaining('--tenant is required')]);
  });

  it("shows one refund as the API answers it; another tenant's is not found", async () => {
    const shown = await cli('refund', 'show', '--tenant', a.tenantId, claim1.id, '--json');
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toEqual((await call('GET', `/refunds/${claim1.id}/`)).body);
    const text = await cli('refund', 'show', '--tenant', a.tenantId, claim2.id);
    expect(text.out).toContain(`    claim_url        ${claim2.claim_url as string}`);
    expect(text.out).toContain('    reason           damaged');
    const stranger = await cli('refund', 'show', '--tenant', b.tenantId, claim1.id);
    expect([stranger.code, stranger.err]).toEqual([1, expect.stringContaining('not_found')]);
  });
});

describe('refund cancel', () => {
  it('cancels a pending refund through the API use case: its withdrawal cancelled, the hold released, the amount refundable again', async () => {
    const p = await paid('100');
    const before = await usdt();
    const made = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '99', address: DEST } });
    expect(made.status).toBe(201);
    expect(await usdt()).toMatchObject({ amount: sub(before.amount, '99'), locked: add(before.locked, '99') });
    const res = await cli('refund', 'cancel', '--tenant', a.tenantId, made.body.id as string, '--json');
    expect([res.code, JSON.parse(res.out).status]).toEqual([0, 'cancelled']);
    expect(await usdt()).toEqual(before);
    const refund = await dynamoRefunds.get(a.tenantId, made.body.id as string);
    expect(await dynamoWithdrawals.get(a.tenantId, refund?.withdrawalId ?? 'none')).toMatchObject({ status: 'cancelled' });
    expect((await call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '0', refundable: '99' });
    expect((await call('GET', `/refunds/${made.body.id as string}/`)).body.status).toBe('cancelled');
    // Cancelled already: refused, and nothing moves.
    const again = await cli('refund', 'cancel', '--tenant', a.tenantId, made.body.id as string);
    expect([again.code, again.out]).toEqual([1, '']);
    expect(again.err).toMatch(/^invalid_state: A cancelled refund cannot be cancelled/);
    expect(await usdt()).toEqual(before);
  });

  it('cancels a refund awaiting its address (its own hold released); another tenant cannot', async () => {
    const p = await paid('100');
    const before = await usdt();
    const made = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '40' } });
    expect(await usdt()).toMatchObject({ locked: add(before.locked, '40') });
    const stranger = await cli('refund', 'cancel', '--tenant', b.tenantId, made.body.id as string);
    expect([stranger.code, stranger.err]).toEqual([1, expect.stringContaining('not_found')]);
    const res = await cli('refund', 'cancel', '--tenant', a.tenantId, made.body.id as string);
    expect(res.code).toBe(0);
    expect(res.out.split('\n')[0]).toMatch(new RegExp(`^${made.body.id as string}  cancelled  `));
    expect(await usdt()).toEqual(before);
    expect((await call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '0' });
  });

  it('refuses a completed refund with the 409 message and a non-zero exit, charging nothing back', async () => {
    const p = await paid('120');
    const made = await call('POST', `/payments/${p.id}/refunds/`, { body: { address: DEST } });
    const refund = await dynamoRefunds.get(a.tenantId, made.body.id as string);
    const w = await dynamoWithdrawals.get(a.tenantId, refund?.withdrawalId ?? 'none');
    if (!w) throw new Error('the refund has no withdrawal');
    const sent = await withdrawals.save(w, withdrawalTransition(w, { kind: 'dispatched' }, new Date()), new Date());
    await settleWithdrawal(sent, { ok: true, txHash: '0xrefunded' }, new Date(), { withdrawals });
    const after = await usdt();
    const res = await cli('refund', 'cancel', '--tenant', a.tenantId, made.body.id as string);
    expect([res.code, res.err]).toEqual([1, expect.stringMatching(/^invalid_state: A completed refund cannot be cancelled/)]);
    expect((await call('GET', `/refunds/${made.body.id as string}/`)).body.status).toBe('completed');
    expect(await usdt()).toEqual(after);
    expect((await call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '20' });
  });
});
