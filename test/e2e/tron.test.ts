import { confirmedResult } from '../support/chain-results.js';
import type { ChainTx } from '../../shared/domain/chain-tx.js';
import type { handler as ChainScanner } from '../../functions/chain-scanner/handler.js';
import type { handler as ChainResults } from '../../functions/chain-results/handler.js';
import { LOCAL_TRON } from '../../infra/local/stack.js';
import { requestIdOf } from '../../shared/domain/chain-tx.js';
import { tronAddressToEvmHex } from '../../shared/domain/chain-addresses.js';
import { TronGridClient } from '../../shared/chain/tron/grid.js';
import { dynamoChainTxStore } from '../../shared/store/chain-tx.js';
import { getBalance } from '../../shared/store/ledger.js';
import { getPayment } from '../../shared/store/payments.js';
import { followChainTxs } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { processChainTx } from '../../shared/usecases/chain-tx/process-chain-tx.js';
import type { ChainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { devPay, localChainsOf } from '../../infra/local/dev/dev-pay.js';
import { caller, putFixedRates, tenantWithToken } from '../integration/payments/support.js';
import { startTestStack } from '../support/stack.js';
import type { TestStack } from '../support/stack.js';

/**
 * A USDTTRC20 payment on the local stack's TRON node, through the workers' own wiring: `dev pay` (the node's
 * faucet), the chain-scanner worker (TRON block events), the engine from configuration (KMS signing, TronGrid
 * broadcast), the follower, and the chain-results worker completing the payment.
 */
let stack: TestStack;
let chainScanner: typeof ChainScanner;
let chainResults: typeof ChainResults;
let engine: ChainTxRuntime;

beforeAll(async () => {
  // The deployment's setting, in the environment the stack's workers are wired from (before they load).
  process.env.CHAIN_TX_CONFIRMATIONS = '1';
  stack = await startTestStack({ tron: true, pollers: false, http: false });
  ({ handler: chainScanner } = await import('../../functions/chain-scanner/handler.js'));
  ({ handler: chainResults } = await import('../../functions/chain-results/handler.js'));
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
    await chainScanner(undefined, { getRemainingTimeInMillis: () => 16_000 });
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
