import { KMSClient } from '@aws-sdk/client-kms';
import type { handler as ChainResults } from '../../functions/chain-results/handler.js';
import type { handler as WithdrawalBatcher } from '../../functions/withdrawal-batcher/handler.js';
import { EsploraClient } from '../../shared/chain/btc/esplora.js';
import { depositAddress } from '../../shared/chain/btc/p2wsh.js';
import { kmsBtcSigners } from '../../shared/chain/engine/btc.js';
import type { ChainTx } from '../../shared/domain/chain-tx.js';
import { currentAttempt } from '../../shared/domain/chain-tx.js';
import type { ChainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { ledgerRuntime } from '../../shared/runtime/ledger.js';
import { dynamoHotCoins } from '../../shared/store/btc-coins.js';
import { dynamoChainTxStore } from '../../shared/store/chain-tx.js';
import { followOnce } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { processChainTx } from '../../shared/usecases/chain-tx/process-chain-tx.js';
import { creditAdjustment } from '../../shared/usecases/ledger/credit-adjustment.js';
import { resultAsRouted } from '../support/chain-results.js';
import { caller, putFixedRates, tenantWithToken } from '../integration/payments/support.js';
import { startTestStack } from '../support/stack.js';
import type { TestStack } from '../support/stack.js';

/**
 * BTC withdrawals on the local stack, through the workers' own wiring: `POST /withdrawal/` (the one creation path:
 * limits, holds, idempotency), the withdrawal-batcher worker (every pending BTC withdrawal in ONE request), the
 * engine from configuration (BTC_API_URL, the hot wallet's KMS key, the coin store) as the transfers consumer
 * runs it, the follower, and the chain-results worker completing each withdrawal with its share of the fee.
 */
let stack: TestStack;
let engine: ChainTxRuntime;
let batcher: typeof WithdrawalBatcher;
let chainResults: typeof ChainResults;

const RECIPIENTS = ['bcrt1q9gdzv2wl0cgdrac0mv40lj420axjjgu7dr4jne', 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'] as const;
const context = { getRemainingTimeInMillis: () => 30_000 };

beforeAll(async () => {
  stack = await startTestStack({ btc: true, pollers: false, http: false });
  ({ handler: batcher } = await import('../../functions/withdrawal-batcher/handler.js'));
  ({ handler: chainResults } = await import('../../functions/chain-results/handler.js'));
  engine = chainTxRuntime();
  await putFixedRates();
});

afterAll(async () => {
  await stack?.stop();
});

describe('BTC withdrawals on the local stack', () => {
  it('two withdrawals created over HTTP go out in ONE transaction, arrive exactly, and complete with their fee shares', async () => {
    const node = stack.btc;
    if (!node) throw new Error('no local Bitcoin node');
    const esplora = new EsploraClient(node.url);
    // The hot wallet's coins: two customers' deposits to its P2WSH addresses, mined, recorded.
    const kms = new KMSClient({ region: stack.env.AWS_REGION ?? 'us-east-1', endpoint: stack.env.AWS_ENDPOINT_URL_KMS });
    const hotKey = await kmsBtcSigners(kms)(stack.env.HOT_WALLET_KEY_ID as string).publicKey();
    kms.destroy();
    const deposits = [0, 1].map((i) => {
      const address = depositAddress('t-e2e', `payment-${i}`, hotKey, 'local');
      return { address, txid: node.fund(address.address, 100_000n) };
    });
    node.mine(1);
    for (const [i, d] of deposits.entries()) {
      const utxo = (await esplora.addressUtxo(d.address.address)).find((u) => u.txid === d.txid);
      if (!utxo) throw new Error('deposit not mined');
      const tag = Buffer.from(d.address.witnessScript.subarray(1, 33)).toString('hex');
      await dynamoHotCoins.add([{ network: 'BTC', txid: d.txid, vout: utxo.vout, value: 100_000n, tag, source: `payment:t-e2e:p${i}` }]);
    }

    const merchant = await tenantWithToken('Local BTC merchant');
    await creditAdjustment({ tenant_id: merchant.tenantId, currency: 'BTC', amount: '0.01', reason: 'test funding' }, ledgerRuntime());
    const { handler } = await import('../../functions/withdrawals/handler.js');
    const call = caller(handler, () => merchant.bearer);
    const created = [];
    for (const [i, address] of RECIPIENTS.entries()) {
      const answer = await call('POST', '/withdrawal/', { body: { amount: i === 0 ? '0.0006' : '0.00075', currency: 'BTC', address } });
      expect(answer.status).toBe(201);
      created.push(answer.body as { id: string; network_fee: string });
    }

    await batcher(undefined as never, context as never);
    const open = await dynamoChainTxStore.listOpen('BTC');
    expect(open).toHaveLength(1);
    const request = open[0] as ChainTx;
    expect(request).toMatchObject({ purpose: 'withdrawal_batch', items: created.map((w) => `${merchant.tenantId}:${w.id}`) });

    // The transfers consumer's work: reserve, sign through KMS, persist, broadcast.
    const sent = await processChainTx(request.requestId, engine.deps);
    const attempt = currentAttempt(sent);
    if (!attempt || attempt.fees.type !== 'btc') throw new Error('not sent');
    node.mine(2);
    await followOnce('BTC', engine.deps);
    const confirmed = (await dynamoChainTxStore.get(request.requestId)) as ChainTx;
    expect(confirmed).toMatchObject({ status: 'confirmed', mined: { hash: attempt.hash } });
    expect((await chainResults(await resultAsRouted(confirmed), context as never)).batchItemFailures).toEqual([]);

    expect((await esplora.addressUtxo(RECIPIENTS[0])).filter((u) => u.txid === attempt.hash).map((u) => u.value)).toEqual([60_000]);
    expect((await esplora.addressUtxo(RECIPIENTS[1])).filter((u) => u.txid === attempt.hash).map((u) => u.value)).toEqual([75_000]);
    let fees = 0;
    for (const w of created) {
      const got = (await call('GET', `/withdrawal/${w.id}/`)).body as { status: string; transaction_hash: string; network_fee: string };
      expect(got).toMatchObject({ status: 'completed', transaction_hash: attempt.hash });
      fees += Math.round(Number(got.network_fee) * 1e8);
    }
    expect(fees).toBe(Number(attempt.fees.fee));
  });
});
