import { KMSClient } from '@aws-sdk/client-kms';
import type { handler as ChainResults } from '../../functions/chain-results/handler.js';
import type { handler as WithdrawalBatcher } from '../../functions/withdrawal-batcher/handler.js';
import type { BitcoinNode } from '../../infra/local/bitcoin.js';
import { EsploraClient } from '../../shared/chain/btc/esplora.js';
import { depositAddress } from '../../shared/chain/btc/p2wsh.js';
import { kmsBtcSigners } from '../../shared/chain/engine/btc.js';
import { BTC_DUST_LIMITS } from '../../shared/domain/bitcoin.js';
import type { ChainTx } from '../../shared/domain/chain-tx.js';
import { currentAttempt } from '../../shared/domain/chain-tx.js';
import { findCurrency, withdrawalMinimum } from '../../shared/domain/currencies.js';
import { add, fromBaseUnits, gte, isNegative, lte, max, sub, toBaseUnits } from '../../shared/domain/money.js';
import type { ChainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { ledgerRuntime } from '../../shared/runtime/ledger.js';
import { dynamoHotCoins } from '../../shared/store/btc-coins.js';
import { dynamoChainTxStore } from '../../shared/store/chain-tx.js';
import { getBalance } from '../../shared/store/ledger.js';
import { dynamoRefunds } from '../../shared/store/refunds.js';
import { followOnce } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { processChainTx } from '../../shared/usecases/chain-tx/process-chain-tx.js';
import { creditAdjustment } from '../../shared/usecases/ledger/credit-adjustment.js';
import { resultAsRouted } from '../support/chain-results.js';
import { caller, tenantWithToken } from '../integration/payments/support.js';
import { customerWallet, elsewhereAddress, startBtcStack } from './btc-support.js';
import type { BtcStack } from './btc-support.js';

/**
 * BTC withdrawals and refunds on the local stack and a local Bitcoin node mining on the test's word
 * (./btc-support.ts), through the workers' own wiring: `POST /withdrawal/` (the one creation path: limits, holds,
 * idempotency) and `POST /payments/{id}/refunds/` (a refund's withdrawal), the withdrawal-batcher worker (every
 * pending BTC withdrawal in ONE request), the engine from configuration (BTC_API_URL, the hot wallet's KMS key, the
 * coin store) as the transfers consumer runs it, the follower, and the chain-results worker completing each
 * withdrawal with its share of the fee (a refund following its withdrawal in the same transaction). Each test has a
 * merchant of its own and leaves no chain-tx request open.
 */
let btc: BtcStack;
let node: BitcoinNode;
let engine: ChainTxRuntime;
let batcher: typeof WithdrawalBatcher;
let chainResults: typeof ChainResults;

const RECIPIENTS = ['bcrt1q9gdzv2wl0cgdrac0mv40lj420axjjgu7dr4jne', 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'] as const;
const context = { getRemainingTimeInMillis: () => 30_000 };

/** The confirmed balance of `address` on the node, in satoshis (Esplora's `chain_stats`). */
async function confirmedSats(address: string): Promise<bigint> {
  const res = await fetch(`${node.url}/address/${address}`);
  expect(res.status).toBe(200);
  const { chain_stats: s } = (await res.json()) as { chain_stats: { funded_txo_sum: number; spent_txo_sum: number } };
  return BigInt(s.funded_txo_sum - s.spent_txo_sum);
}

/**
 * The one open BTC request, a withdrawal batch of `items` (`<tenant>:<withdrawal id>`), sent as the transfers
 * consumer sends it (reserve, sign through KMS, persist, broadcast), mined, followed until confirmed and its result
 * handled by the chain-results worker: the transaction's hash and fee (satoshis).
 */
async function sendOpenBatch(items: readonly string[]): Promise<{ hash: string; fee: bigint }> {
  const open = await dynamoChainTxStore.listOpen('BTC');
  expect(open).toHaveLength(1);
  const request = open[0] as ChainTx;
  expect(request).toMatchObject({ purpose: 'withdrawal_batch', items });
  const sent = await processChainTx(request.requestId, engine.deps);
  const attempt = currentAttempt(sent);
  if (!attempt || attempt.fees.type !== 'btc') throw new Error('not sent');
  node.mine(2);
  await followOnce('BTC', engine.deps);
  const confirmed = (await dynamoChainTxStore.get(request.requestId)) as ChainTx;
  expect(confirmed).toMatchObject({ status: 'confirmed', mined: { hash: attempt.hash } });
  expect((await chainResults(await resultAsRouted(confirmed), context as never)).batchItemFailures).toEqual([]);
  return { hash: attempt.hash, fee: attempt.fees.fee };
}

beforeAll(async () => {
  btc = await startBtcStack();
  node = btc.node;
  ({ handler: batcher } = await import('../../functions/withdrawal-batcher/handler.js'));
  ({ handler: chainResults } = await import('../../functions/chain-results/handler.js'));
  engine = chainTxRuntime();
});

afterAll(async () => {
  await btc?.stop();
});

describe('BTC withdrawals on the local stack', () => {
  it('two withdrawals created over HTTP go out in ONE transaction, arrive exactly, and complete with their fee shares', async () => {
    const esplora = new EsploraClient(node.url);
    // The hot wallet's coins: two customers' deposits to its P2WSH addresses, mined, recorded.
    const kms = new KMSClient({ region: btc.stack.env.AWS_REGION ?? 'us-east-1', endpoint: btc.stack.env.AWS_ENDPOINT_URL_KMS });
    const hotKey = await kmsBtcSigners(kms)(btc.stack.env.HOT_WALLET_KEY_ID as string).publicKey();
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
    const attempt = await sendOpenBatch(created.map((w) => `${merchant.tenantId}:${w.id}`));

    expect((await esplora.addressUtxo(RECIPIENTS[0])).filter((u) => u.txid === attempt.hash).map((u) => u.value)).toEqual([60_000]);
    expect((await esplora.addressUtxo(RECIPIENTS[1])).filter((u) => u.txid === attempt.hash).map((u) => u.value)).toEqual([75_000]);
    let fees = 0;
    for (const w of created) {
      const got = (await call('GET', `/withdrawal/${w.id}/`)).body as { status: string; transaction_hash: string; network_fee: string };
      expect(got).toMatchObject({ status: 'completed', transaction_hash: attempt.hash });
      fees += Math.round(Number(got.network_fee) * 1e8);
    }
    expect(fees).toBe(Number(attempt.fee));
  });
});

describe('BTC refunds on the local stack', () => {
  it("an overpayment's excess is refunded to the customer's address: paid on chain, the refund completed, the merchant charged its amount", async () => {
    const customer = customerWallet(node);
    /** Where the refund goes: another wallet of the test's (P2WPKH). */
    const refundTo = elsewhereAddress();
    const merchant = await tenantWithToken('Local BTC refunds merchant');
    const payments = caller((await import('../../functions/payments/handler.js')).handler, () => merchant.bearer);
    const refunds = caller((await import('../../functions/refunds/handler.js')).handler, () => merchant.bearer);
    const balance = async () => (await getBalance(merchant.tenantId, 'main', 'BTC')).amount;

    const created = await payments('POST', '/payments/', { body: { amount: '60', currency: 'BTC' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ currency: 'BTC', amount_crypto: '0.00100000' });
    const id = created.body.transaction_id as string;
    // Twice what is due: 0.001 BTC too much.
    await customer.broadcast(customer.spend(await customer.fundedCoin(1_000_000n), created.body.address as string, 200_000n, 1_000n, 0xffffffff));
    await btc.pass();
    node.mine(2);
    await btc.pass();
    expect((await payments('GET', `/payments/${id}/`)).body).toMatchObject({ status: 'completed' });
    const credited = await balance();
    // 0.002 received, less the 1 % fee on the 0.001 due.
    expect(credited).toBe('0.00199');

    // What is refundable, and the smallest refund: the network's minimum to any Bitcoin address (the catalogue's
    // minimum, above every output type's dust limit) plus the network fee deducted from it.
    const refundable = await refunds('GET', `/payments/${id}/refundable/`);
    expect(refundable.status).toBe(200);
    const fee = refundable.body.estimated_network_fee as string;
    const currency = findCurrency('BTC');
    if (!currency) throw new Error('no BTC in the catalogue');
    const largestDust = fromBaseUnits(
      Object.values(BTC_DUST_LIMITS).reduce((a, b) => (a > b ? a : b)),
      8,
    );
    expect(refundable.body).toMatchObject({ currency: 'BTC', minimum: add(max(withdrawalMinimum(currency), largestDust), fee) });
    expect(gte(refundable.body.minimum as string, add(largestDust, fee))).toBe(true);
    expect(lte(refundable.body.minimum as string, refundable.body.refundable as string)).toBe(true);

    // Below the minimum: 422 below_minimum, nothing held.
    const tooSmall = await refunds('POST', `/payments/${id}/refunds/`, {
      body: { amount: sub(refundable.body.minimum as string, '0.00000001'), address: refundTo },
    });
    expect([tooSmall.status, tooSmall.body.error.code]).toEqual([422, 'below_minimum']);
    expect(tooSmall.body.error.details).toMatchObject({ minimum: refundable.body.minimum, network_fee: fee, currency: 'BTC' });
    expect(await balance()).toBe(credited);

    // The excess (suggested when no amount is given), to the customer's other address.
    const made = await refunds('POST', `/payments/${id}/refunds/`, { body: { address: refundTo, reason: 'overpaid' } });
    expect([made.status, made.body.status, made.body.amount, made.body.network_fee]).toEqual([201, 'pending', '0.001', fee]);
    const refundId = made.body.id as string;
    expect(await balance()).toBe(sub(credited, '0.001'));

    // The batcher dispatches the refund's withdrawal as a Bitcoin batch of one output; the refund follows it.
    await batcher(undefined as never, context as never);
    expect((await refunds('GET', `/refunds/${refundId}/`)).body.status).toBe('processing');
    const withdrawalId = (await dynamoRefunds.get(merchant.tenantId, refundId))?.withdrawalId;
    const attempt = await sendOpenBatch([`${merchant.tenantId}:${withdrawalId}`]);

    // Completed with what the chain took: amount_sent = amount - network_fee, the amount what the merchant was charged
    // (the fee held above what the chain took is refundable again).
    const done = (await refunds('GET', `/refunds/${refundId}/`)).body;
    expect(done).toMatchObject({ status: 'completed', transaction_hash: attempt.hash });
    expect(done.amount_sent).toBe(sub(done.amount as string, done.network_fee as string));
    expect(done.amount_sent).toBe(sub('0.001', fee));
    expect(lte(done.network_fee as string, fee)).toBe(true);
    expect(toBaseUnits(done.network_fee as string, 8)).toBe(attempt.fee);
    // The customer's address holds exactly amount_sent, confirmed.
    expect(await confirmedSats(refundTo)).toBe(toBaseUnits(done.amount_sent as string, 8));
    // The merchant paid exactly the refund's amount, and never went below zero.
    const after = await balance();
    expect(after).toBe(sub(credited, done.amount as string));
    expect(isNegative(after)).toBe(false);
    expect((await getBalance(merchant.tenantId, 'main', 'BTC')).locked).toBe('0');
    expect((await payments('GET', `/payments/${id}/`)).body).toMatchObject({ refunded_amount: done.amount });
  });
});
