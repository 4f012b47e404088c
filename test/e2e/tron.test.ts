import { randomBytes } from 'node:crypto';
import { confirmedResult } from '../support/chain-results.js';
import type { ChainTx } from '../../shared/domain/chain-tx.js';
import type { handler as ChainScanner } from '../../functions/chain-scanner/handler.js';
import type { handler as ChainResults } from '../../functions/chain-results/handler.js';
import type { handler as WithdrawalBatcher } from '../../functions/withdrawal-batcher/handler.js';
import { LOCAL_TRON } from '../../infra/local/stack.js';
import { requestIdOf } from '../../shared/domain/chain-tx.js';
import { tronAddressFromBytes, tronAddressToEvmHex } from '../../shared/domain/chain-addresses.js';
import { isNegative, sub, toBaseUnits } from '../../shared/domain/money.js';
import { TronGridClient } from '../../shared/chain/tron/grid.js';
import { dynamoChainTxStore } from '../../shared/store/chain-tx.js';
import { getBalance } from '../../shared/store/ledger.js';
import { getPayment } from '../../shared/store/payments.js';
import { dynamoRefunds } from '../../shared/store/refunds.js';
import { followChainTxs, followOnce } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { processChainTx } from '../../shared/usecases/chain-tx/process-chain-tx.js';
import type { ChainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { devPay, localChainsOf } from '../../infra/local/dev/dev-pay.js';
import { caller, putFixedRates, tenantWithToken } from '../integration/payments/support.js';
import { startTestStack } from '../support/stack.js';
import type { TestStack } from '../support/stack.js';

/**
 * USDTTRC20 on the local stack's TRON node, through the workers' own wiring. A payment paid with `dev pay` (the
 * node's faucet), seen by the chain-scanner worker (TRON block events), swept by the engine from configuration (KMS
 * signing, TronGrid broadcast), followed, and completed by the chain-results worker. A refund: a payment overpaid
 * the same way, its excess refunded with `POST /payments/{id}/refunds/` to an address of the test's (never
 * activated: the activation fee is part of the network fee); the withdrawal-batcher worker dispatches the refund's
 * withdrawal, the engine signs it through KMS and broadcasts it from the hot wallet's USDT float, the follower sees
 * it confirmed, and the chain-results worker completes the withdrawal with the refund following it. Each test has a
 * merchant of its own.
 */
let stack: TestStack;
let chainScanner: typeof ChainScanner;
let chainResults: typeof ChainResults;
let batcher: typeof WithdrawalBatcher;
let engine: ChainTxRuntime;

// A worker budget of about a second (the chain-scanner keeps 15 s of it unused): one pass a network.
const context = { getRemainingTimeInMillis: () => 16_000 };
/** A TRON address nobody controls on the node yet: the refund's destination. */
const refundTo = tronAddressFromBytes(Uint8Array.from([0x41, ...randomBytes(20)]));

/** The engine sends `requestId`; blocks are mined at once (the node's timer makes one every 3 s) and it follows. */
async function sendAndConfirm(requestId: string): Promise<ChainTx> {
  await processChainTx(requestId, engine.deps);
  stack.tron?.mine(2);
  await followOnce('TRX', engine.deps);
  const tx = await dynamoChainTxStore.get(requestId);
  expect(tx?.status).toBe('confirmed');
  return tx as ChainTx;
}

beforeAll(async () => {
  // The deployment's setting, in the environment the stack's workers are wired from (before they load).
  process.env.CHAIN_TX_CONFIRMATIONS = '1';
  stack = await startTestStack({ tron: true, pollers: false, http: false });
  ({ handler: chainScanner } = await import('../../functions/chain-scanner/handler.js'));
  ({ handler: chainResults } = await import('../../functions/chain-results/handler.js'));
  ({ handler: batcher } = await import('../../functions/withdrawal-batcher/handler.js'));
  engine = chainTxRuntime();
  await putFixedRates();
});

afterAll(async () => {
  delete process.env.CHAIN_TX_CONFIRMATIONS;
  await stack?.stop();
});

describe('TRON on the local stack', () => {
  it('a payment paid with `dev pay` is detected, confirmed, swept by the engine and credited', async () => {
    expect(stack.env.TRON_API_URL).toBe(stack.stackJson.rpcUrls.TRX);
    const merchant = await tenantWithToken('Local TRON merchant');
    const { handler } = await import('../../functions/payments/handler.js');
    const call = caller(handler, () => merchant.bearer);
    // The scanner's cursor starts at the head on its first pass.
    await chainScanner(undefined, context);
    const created = await call('POST', '/payments/', { body: { amount: '10', blockchain: 'TRON', token: 'USDT' } });
    expect(created.status).toBe(201);
    const id = created.body.transaction_id as string;

    const paid = await devPay(id, undefined, localChainsOf(stack.stackJson));
    expect([paid.amount, paid.currency]).toEqual(['10', 'USDTTRC20']);
    // Passes for about 9 s: the transfer's block (3 s), then its confirmations (2 locally), then the sweep request.
    for (let i = 0; i < 4 && (await getPayment(merchant.tenantId, id))?.status !== 'sending'; i++) {
      await chainScanner(undefined, { getRemainingTimeInMillis: () => 20_000 });
    }
    const sending = await getPayment(merchant.tenantId, id);
    expect(sending?.status).toBe('sending');

    const requestId = requestIdOf('TRX', sending?.sweepReference ?? '');
    await processChainTx(requestId, engine.deps);
    await followChainTxs('TRX', engine.deps, { until: new Date(Date.now() + 9_000), pollMs: 1_000 });
    const tx = await dynamoChainTxStore.get(requestId);
    expect(tx?.status).toBe('confirmed');

    expect((await chainResults(confirmedResult(tx as ChainTx, 'm1'))).batchItemFailures).toEqual([]);
    expect((await getPayment(merchant.tenantId, id))?.status).toBe('completed');
    expect((await getBalance(merchant.tenantId, 'main', 'USDTTRC20')).amount).toBe('9.9');
    // The treasury holds the swept tokens on the node.
    const events = await new TronGridClient(stack.stackJson.rpcUrls.TRX ?? '').blockEvents(tx?.mined?.blockNumber ?? 0);
    const toTreasury = events.filter(
      (e) => e.event_name === 'Transfer' && e.transaction_id === tx?.mined?.hash && e.result.to === tronAddressToEvmHex(LOCAL_TRON.treasury),
    );
    expect(toTreasury.map((e) => e.result.value)).toEqual(['10000000']);
  });
});

describe('TRON refunds on the local stack', () => {
  it("an overpayment's excess is refunded in USDTTRC20: paid on chain, the refund completed, the merchant charged its amount", async () => {
    const node = stack.tron;
    if (!node) throw new Error('no local TRON node');
    const merchant = await tenantWithToken('Local TRON refunds merchant');
    const payments = caller((await import('../../functions/payments/handler.js')).handler, () => merchant.bearer);
    const refunds = caller((await import('../../functions/refunds/handler.js')).handler, () => merchant.bearer);
    // The scanner up to the head before the payment is made.
    await chainScanner(undefined, context);
    const created = await payments('POST', '/payments/', { body: { amount: '10', blockchain: 'TRON', token: 'USDT' } });
    expect(created.status).toBe(201);
    const id = created.body.transaction_id as string;
    // 15 USDT too much.
    await devPay(id, '25', localChainsOf(stack.stackJson));
    // The transfer's block, its confirmations (2 locally), then the sweep request: mined at once, not waited for.
    for (let i = 0; i < 4 && (await getPayment(merchant.tenantId, id))?.status !== 'sending'; i++) {
      node.mine(2);
      await chainScanner(undefined, context);
    }
    const sending = await getPayment(merchant.tenantId, id);
    expect(sending?.status).toBe('sending');
    const sweep = await sendAndConfirm(requestIdOf('TRX', sending?.sweepReference ?? ''));
    expect((await chainResults(confirmedResult(sweep, 'm-sweep'))).batchItemFailures).toEqual([]);
    expect(await getPayment(merchant.tenantId, id)).toMatchObject({ status: 'completed', flags: ['overpaid'] });
    const credited = (await getBalance(merchant.tenantId, 'main', 'USDTTRC20')).amount;
    // 25 received, less the 1 % fee on the 10 due.
    expect(credited).toBe('24.9');

    const refundable = await refunds('GET', `/payments/${id}/refundable/`);
    expect(refundable.body).toMatchObject({ currency: 'USDTTRC20', refundable: '24.9' });
    const made = await refunds('POST', `/payments/${id}/refunds/`, { body: { address: refundTo, reason: 'overpaid' } });
    expect([made.status, made.body.status, made.body.amount]).toEqual([201, 'pending', '15']);
    // The network fee to a never-activated address includes its activation.
    expect(made.body.network_fee).toBe('2');
    const refundId = made.body.id as string;
    expect((await getBalance(merchant.tenantId, 'main', 'USDTTRC20')).amount).toBe(sub(credited, '15'));

    await batcher(undefined as never, context as never);
    expect((await refunds('GET', `/refunds/${refundId}/`)).body.status).toBe('processing');
    const withdrawalId = (await dynamoRefunds.get(merchant.tenantId, refundId))?.withdrawalId ?? '';
    const payout = await sendAndConfirm(requestIdOf('TRX', withdrawalId));
    expect((await chainResults(confirmedResult(payout, 'm-refund'))).batchItemFailures).toEqual([]);

    const done = (await refunds('GET', `/refunds/${refundId}/`)).body;
    expect(done).toMatchObject({ status: 'completed', transaction_hash: payout.mined?.hash });
    expect(done.amount_sent).toBe(sub(done.amount as string, done.network_fee as string));
    expect(done.amount_sent).toBe('13');
    // The destination holds exactly amount_sent of the token on the node.
    expect(node.tokenBalance(LOCAL_TRON.usdt, refundTo)).toBe(toBaseUnits(done.amount_sent as string, 6));
    const after = await getBalance(merchant.tenantId, 'main', 'USDTTRC20');
    expect(after).toMatchObject({ amount: sub(credited, done.amount as string), locked: '0' });
    expect(isNegative(after.amount)).toBe(false);
    expect((await payments('GET', `/payments/${id}/`)).body).toMatchObject({ refunded_amount: done.amount });
  });
});
