import type { SQSEvent } from 'aws-lambda';
import { requestIdOf } from '../../../shared/domain/chain-tx.js';
import { getBalance, listAllEntries, platformBalances } from '../../../shared/store/ledger.js';
import { dynamoChainTxStore } from '../../../shared/store/chain-tx.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import type { BatcherDeps } from '../../../shared/usecases/withdrawals/ports.js';
import { runWithdrawalBatch } from '../../../shared/usecases/withdrawals/process.js';
import { erc20TransferData } from '../../../shared/chain/evm/erc20.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { batcherDeps, withdrawalsApi } from '../../support/withdrawals.js';
import { caller, putFixedRates, tenantWithToken } from '../payments/support.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';

/** The batcher (pending -> processing with a chain-tx request), the chain result consumer, and the staging addresses. */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const WALLET = '0x1111111111111111111111111111111111111111';
const USDT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
let table: TestTable;
let t: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;

const deps = (stage = 'test', now = () => new Date()): BatcherDeps =>
  batcherDeps({
    wallet: async () => ({ keyId: 'key-1', address: WALLET }),
    chainTx: { store: dynamoChainTxStore, clock: () => new Date() },
    tokenContract: (code) => (code === 'USDTERC20' ? USDT : null),
    stage,
    now,
  });

const sqs = (tenantId: string, type: string, reference: string, txHash: string | null): SQSEvent =>
  ({
    Records: [
      {
        messageId: `m-${reference}-${type}`,
        body: JSON.stringify({
          event_id: 'e',
          tenant_id: tenantId,
          type,
          occurred_at: new Date().toISOString(),
          payload: { request_id: 'r', network: 'ETH', reference, purpose: 'withdrawal', tx_hash: txHash },
        }),
      },
    ],
  }) as unknown as SQSEvent;

beforeAll(async () => {
  table = await startTestTable();
  const { resetConfig } = await import('../../../shared/config/config.js');
  resetConfig();
  await putFixedRates();
  t = await tenantWithToken('Batcher');
  await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDTERC20', amount: '1000', reason: 'test funding' }, ledgerRuntime());
  const handler = withdrawalsApi();
  call = caller(handler, () => t.bearer);
});

afterAll(async () => {
  await table?.stop();
});

const create = async (address: string, amount = '100') => {
  const res = await call('POST', '/withdrawal/', { body: { amount, currency: 'USDTERC20', address } });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

describe('withdrawal batcher', () => {
  it('requests an ERC-20 transfer, then completes on chain_tx.confirmed (funds leave, fees to the platform)', async () => {
    const id = await create(DEST);
    const report = await runWithdrawalBatch(deps());
    expect(report.processing).toBe(1);
    expect((await call('GET', `/withdrawal/${id}/`)).body.status).toBe('processing');
    const tx = await dynamoChainTxStore.get(requestIdOf('ETH', id));
    expect(tx).toMatchObject({ purpose: 'withdrawal', reference: id, tenantId: t.tenantId, value: 0n, data: erc20TransferData(DEST, 100_000_000n) });
    expect(tx?.to.toLowerCase()).toBe(USDT.toLowerCase());
    // A processing withdrawal cannot be cancelled.
    expect((await call('POST', `/withdrawal/${id}/cancel/`)).status).toBe(409);

    const { handler: consumer } = await import('../../../functions/chain-results/handler.js');
    expect((await consumer(sqs(t.tenantId, 'chain_tx.confirmed', id, '0xabc'))).batchItemFailures).toEqual([]);
    const done = (await call('GET', `/withdrawal/${id}/`)).body;
    expect([done.status, done.transaction_hash]).toEqual(['completed', '0xabc']);
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '896', pending: '0', locked: '0' });
    expect((await platformBalances('platform:fees', ['USDTERC20'])).USDTERC20).toBe('1');
    expect((await platformBalances('platform:network_fees', ['USDTERC20'])).USDTERC20).toBe('3');
    // A repeated result changes nothing.
    await consumer(sqs(t.tenantId, 'chain_tx.confirmed', id, '0xabc'));
    expect((await listAllEntries(t.tenantId)).filter((e) => e.type === 'withdrawal')).toHaveLength(1);
    const list = await call('GET', '/withdrawal/', { query: { status: 'completed' } });
    expect(list.body.withdrawals[0]).toMatchObject({ withdrawal_id: id, transaction_hash: '0xabc' });
  });

  it('returns the funds on chain_tx.failed', async () => {
    const id = await create(DEST, '50');
    await runWithdrawalBatch(deps());
    const { handler: consumer } = await import('../../../functions/chain-results/handler.js');
    await consumer(sqs(t.tenantId, 'chain_tx.failed', id, null));
    expect((await call('GET', `/withdrawal/${id}/`)).body.status).toBe('failed');
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '896', pending: '0', locked: '0' });
  });

  it('settles the staging addresses by themselves outside production, without a chain transaction', async () => {
    const ok = await create('0x0000000000000000000000000000000000000001', '10');
    const bad = await create('0x0000000000000000000000000000000000000002', '10');
    const report = await runWithdrawalBatch(deps());
    expect(report).toMatchObject({ completed: 1, failed: 1 });
    const okBody = (await call('GET', `/withdrawal/${ok}/`)).body;
    expect(okBody.status).toBe('completed');
    expect(okBody.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await call('GET', `/withdrawal/${bad}/`)).body.status).toBe('failed');
    expect(await dynamoChainTxStore.get(requestIdOf('ETH', ok))).toBeUndefined();
    // 896 - (10 + 3 + 0.1) for the completed one; the failed one is returned.
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '882.9', pending: '0', locked: '0' });
  });

  it('asks again for the chain transaction of a processing withdrawal whose request was lost', async () => {
    const id = await create(DEST, '10');
    const broken: BatcherDeps = {
      ...deps(),
      chainTx: {
        store: {
          ...dynamoChainTxStore,
          create: async () => {
            throw new Error('lost');
          },
        },
        clock: () => new Date(),
      },
    };
    expect(await runWithdrawalBatch(broken)).toMatchObject({ skipped: 1 });
    expect((await call('GET', `/withdrawal/${id}/`)).body.status).toBe('processing');
    expect(await dynamoChainTxStore.get(requestIdOf('ETH', id))).toBeUndefined();
    // Within a minute it is left alone; after it, the request is made again.
    await runWithdrawalBatch(deps());
    expect(await dynamoChainTxStore.get(requestIdOf('ETH', id))).toBeUndefined();
    await runWithdrawalBatch(deps('test', () => new Date(Date.now() + 120_000)));
    expect(await dynamoChainTxStore.get(requestIdOf('ETH', id))).toMatchObject({ purpose: 'withdrawal', reference: id });
  });

  it('in production the staging addresses are ordinary destinations', async () => {
    const id = await create('0x0000000000000000000000000000000000000001', '10');
    expect((await runWithdrawalBatch(deps('prod'))).processing).toBe(1);
    expect((await call('GET', `/withdrawal/${id}/`)).body.status).toBe('processing');
  });
});

describe('withdrawal batcher queue', () => {
  it('withdrawals it cannot send (no token contract here) are skipped without holding up the ones behind them', async () => {
    await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDCERC20', amount: '1000', reason: 'test funding' }, ledgerRuntime());
    for (let i = 0; i < 3; i++) {
      const res = await call('POST', '/withdrawal/', { body: { amount: '20', currency: 'USDCERC20', address: DEST } });
      expect(res.status).toBe(201);
    }
    const sendable = await create(DEST, '20');
    // deps() knows no USDCERC20 contract; a pass of 2 still reaches the USDTERC20 withdrawal behind the three.
    const report = await runWithdrawalBatch(deps(), 2);
    expect(report).toMatchObject({ processing: 1, skipped: 3 });
    expect((await call('GET', `/withdrawal/${sendable}/`)).body.status).toBe('processing');
    const stuck = await call('GET', '/withdrawal/', { query: { status: 'pending', blockchain: 'ETH', token: 'USDC' } });
    expect(stuck.body.withdrawals).toHaveLength(3);
  });
});
