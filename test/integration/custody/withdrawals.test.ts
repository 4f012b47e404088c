import { jest } from '@jest/globals';
import { main } from '../../../scripts/gateway.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { dynamoChainTxStore } from '../../../shared/store/chain-tx.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { runWithdrawalBatch, STAGING_COMPLETE } from '../../../shared/usecases/withdrawals/process.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { batcherDeps, withdrawalsApi } from '../../support/withdrawals.js';
import { caller, servingEth, putFixedRates, tenantWithToken } from '../payments/support.js';
import { custodyApi } from '../../support/custody.js';

/**
 * Custody withdrawals on DynamoDB Local: the amount held at once with the fees deducted from it, every refusal,
 * the operator's review policy holding a withdrawal until approved (then sent by the batcher) or rejected (funds
 * returned), Idempotency-Key, and 100 concurrent withdrawals against a balance for 10.
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let table: TestTable;
let t: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let withdrawals: ReturnType<typeof caller>;
let burst: ReturnType<typeof caller>;

const batch = () =>
  runWithdrawalBatch(
    batcherDeps({
      wallet: async () => ({ keyId: 'key-1', address: '0x1111111111111111111111111111111111111111' }),
      chainTx: { store: dynamoChainTxStore, clock: () => new Date() },
      tokenContract: () => '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    }),
  );

async function account(amount: string): Promise<string> {
  const made = await call('POST', '/custody/accounts', { body: { name: 'Treasury' } });
  await creditAdjustment(
    { tenant_id: t.tenantId, account: `custody:${made.body.account_id}`, currency: 'USDTERC20', amount, reason: 'test funding' },
    ledgerRuntime(),
  );
  return made.body.account_id as string;
}

const held = async (accountId: string) => getBalance(t.tenantId, `custody:${accountId}`, 'USDTERC20');

async function cli(...args: string[]): Promise<string[]> {
  const printed: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((text: string) => void printed.push(text));
  try {
    expect(await main(args)).toBe(0);
  } finally {
    log.mockRestore();
  }
  return printed;
}

beforeAll(async () => {
  table = await startTestTable();
  await putFixedRates();
  // A deployment sending ETH withdrawals (an endpoint never dialled here, the hot wallet's key, the token contracts).
  const cfg = servingEth({ HOT_WALLET_KEY_ID: 'custody-test-hot-wallet' });
  t = await tenantWithToken('Custody withdrawals');
  call = caller(custodyApi(cfg), () => t.bearer);
  // A hundred Lambdas' worth of requests at once in this one process: each is given the time the burst may take.
  burst = caller(custodyApi(cfg), () => t.bearer, { remainingMs: 300_000 });
  withdrawals = caller(withdrawalsApi(), () => t.bearer);
});

afterAll(async () => {
  await table?.stop();
});

it('holds the whole amount at once, deducts the fees from it, and shows it in the custody group', async () => {
  const accountId = await account('100');
  const headers = { 'idempotency-key': 'custody-w-1' };
  const body = { account_id: accountId, blockchain: 'ETH', amount: 20, destination_address: DEST, custom_id: 'payout-7' };
  const made = await call('POST', '/custody/withdraw', { body, headers });
  expect(made.status).toBe(200);
  // Network fee 3 and the platform's 1 % of what is sent: 20 = 16.83 + 3 + 0.17.
  expect(made.body).toMatchObject({
    account_id: accountId,
    blockchain: 'ETH',
    amount: 20,
    destination_address: DEST,
    status: 'pending',
    custom_id: 'payout-7',
    review: null,
  });
  expect(made.body.fee + made.body.net_amount).toBeCloseTo(20, 8);
  expect(made.body.fee).toBeGreaterThan(3);
  expect(made.body.estimated_completion_time).toEqual(expect.any(String));
  expect(await held(accountId)).toEqual({ amount: '80', pending: '0', locked: '20' });
  const replay = await call('POST', '/custody/withdraw', { body, headers });
  expect([replay.status, replay.body.withdrawal_id]).toEqual([200, made.body.withdrawal_id]);
  expect(await held(accountId)).toEqual({ amount: '80', pending: '0', locked: '20' });

  // A custody withdrawal is read in the custody group (GET /withdrawal/{id}/ is the main account's: 404 there).
  const shown = await call('GET', `/custody/withdrawals/${made.body.withdrawal_id}`);
  expect([shown.status, shown.body.status, shown.body.amount]).toEqual([200, 'pending', 20]);
  expect((await withdrawals('GET', `/withdrawal/${made.body.withdrawal_id}/`)).status).toBe(404);
  const balances = await call('GET', `/custody/accounts/${accountId}/balances`);
  expect(balances.body.balances[0]).toMatchObject({ blockchain: 'ETH', balance: 100, available: 80, locked: 20 });
  // Cancelled like any pending withdrawal, in the custody group: the hold returns to the account.
  expect((await call('POST', `/custody/withdrawals/${made.body.withdrawal_id}/cancel`)).body.status).toBe('cancelled');
  expect(await held(accountId)).toEqual({ amount: '100', pending: '0', locked: '0' });
});

it('refuses what it cannot send, naming why, and holds nothing', async () => {
  const accountId = await account('30');
  const refusals: [Record<string, unknown>, number, string][] = [
    [{ amount: 9.99 }, 400, 'minimum_amount_not_met'],
    [{ amount: 31 }, 400, 'insufficient_funds'],
    [{ destination_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' }, 400, 'invalid_address'],
    [{ blockchain: 'SOL' }, 400, 'unsupported_blockchain'],
    [{ blockchain: 'DOGE' }, 400, 'unsupported_blockchain'],
    [{ account_id: '6b1f0f8e-1d1c-4e43-9a52-3a0a0c8f5e11' }, 404, 'account_not_found'],
    [{ amount: -5 }, 400, 'invalid_request'],
  ];
  for (const [change, status, code] of refusals) {
    const res = await call('POST', '/custody/withdraw', {
      body: { account_id: accountId, blockchain: 'ETH', amount: 15, destination_address: DEST, ...change },
    });
    expect([JSON.stringify(change), res.status, res.body.error?.code]).toEqual([JSON.stringify(change), status, code]);
  }
  const short = await call('POST', '/custody/withdraw', { body: { account_id: accountId, blockchain: 'ETH', amount: 31, destination_address: DEST } });
  expect(short.body.error.details).toMatchObject({ available: '30', requested: '31', blockchain: 'ETH' });
  expect(await held(accountId)).toEqual({ amount: '30', pending: '0', locked: '0' });
});

it("holds withdrawals the tenant's policy asks to review until the operator approves (sent) or rejects (returned)", async () => {
  const accountId = await account('200');
  await cli('custody', 'policy', '--tenant', t.tenantId, '--threshold', '50', '--allowlist', `${STAGING_COMPLETE},${DEST}`);

  const small = await call('POST', '/custody/withdraw', {
    body: { account_id: accountId, blockchain: 'ETH', amount: 20, destination_address: STAGING_COMPLETE },
  });
  const large = await call('POST', '/custody/withdraw', {
    body: { account_id: accountId, blockchain: 'ETH', amount: 60, destination_address: STAGING_COMPLETE },
  });
  const stranger = await call('POST', '/custody/withdraw', {
    body: { account_id: accountId, blockchain: 'ETH', amount: 15, destination_address: '0x52908400098527886E0F7030069857D2E4169EE7' },
  });
  expect([small.body.review, large.body.review, stranger.body.review]).toEqual([
    null,
    { status: 'awaiting_review', reasons: ['amount_over_threshold'] },
    { status: 'awaiting_review', reasons: ['destination_not_allowed'] },
  ]);
  expect([large.body.status, large.body.estimated_completion_time]).toEqual(['pending', null]);
  expect(await held(accountId)).toEqual({ amount: '105', pending: '0', locked: '95' });

  // The batcher sends only what is not held (the staging address completes without a chain).
  await batch();
  const status = async (id: string) => (await call('GET', `/custody/withdrawals/${id}`)).body.status as string;
  expect([await status(small.body.withdrawal_id), await status(large.body.withdrawal_id), await status(stranger.body.withdrawal_id)]).toEqual([
    'completed',
    'pending',
    'pending',
  ]);
  const waiting = JSON.parse((await cli('custody', 'reviews', '--json'))[0] ?? '[]') as { id: string }[];
  expect(waiting.map((w) => w.id)).toEqual(expect.arrayContaining([large.body.withdrawal_id, stranger.body.withdrawal_id]));

  await cli('custody', 'approve', large.body.withdrawal_id, '--by', 'ops-1');
  await cli('custody', 'reject', stranger.body.withdrawal_id, '--note', 'unknown payee');
  await batch();
  expect([await status(large.body.withdrawal_id), await status(stranger.body.withdrawal_id)]).toEqual(['completed', 'rejected']);
  // 200 - 20 - 60 sent; the rejected 15 back.
  expect(await held(accountId)).toEqual({ amount: '120', pending: '0', locked: '0' });
  // A decided withdrawal is no longer waiting: the operator is told so.
  const errors: string[] = [];
  const quiet = jest.spyOn(console, 'error').mockImplementation((text: string) => void errors.push(text));
  try {
    expect(await main(['custody', 'approve', stranger.body.withdrawal_id])).toBe(1);
  } finally {
    quiet.mockRestore();
  }
  expect(errors[0]).toContain('is waiting for review');
});

it('accepts exactly 10 of 100 concurrent withdrawals against a balance for 10', async () => {
  const accountId = await account('100');
  const answers = await Promise.all(
    Array.from({ length: 100 }, () =>
      burst('POST', '/custody/withdraw', { body: { account_id: accountId, blockchain: 'ETH', amount: 10, destination_address: DEST } }),
    ),
  );
  expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
  expect(answers.filter((a) => a.status !== 200).map((a) => a.body.error.code)).toEqual(Array(90).fill('insufficient_funds'));
  expect(await held(accountId)).toEqual({ amount: '0', pending: '0', locked: '100' });
});
