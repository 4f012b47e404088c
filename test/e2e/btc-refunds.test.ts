import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { p2wpkh, Transaction } from '@scure/btc-signer';
import type { handler as ChainResults } from '../../functions/chain-results/handler.js';
import type { handler as ChainScanner } from '../../functions/chain-scanner/handler.js';
import type { handler as WithdrawalBatcher } from '../../functions/withdrawal-batcher/handler.js';
import { REGTEST, startBitcoinNode } from '../../infra/local/bitcoin.js';
import type { BitcoinNode } from '../../infra/local/bitcoin.js';
import { resetConfig } from '../../shared/config/config.js';
import { BTC_DUST_LIMITS } from '../../shared/domain/bitcoin.js';
import type { ChainTx } from '../../shared/domain/chain-tx.js';
import { currentAttempt } from '../../shared/domain/chain-tx.js';
import { findCurrency, withdrawalMinimum } from '../../shared/domain/currencies.js';
import { add, fromBaseUnits, gte, isNegative, lte, max, sub, toBaseUnits } from '../../shared/domain/money.js';
import type { ChainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { dynamoChainTxStore } from '../../shared/store/chain-tx.js';
import { getBalance } from '../../shared/store/ledger.js';
import { followOnce } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { processChainTx } from '../../shared/usecases/chain-tx/process-chain-tx.js';
import { resultAsRouted } from '../support/chain-results.js';
import { caller, putFixedRates, tenantWithToken } from '../integration/payments/support.js';
import { startTestStack } from '../support/stack.js';
import type { TestStack } from '../support/stack.js';

/**
 * BTC refunds end to end on the local stack and the local Bitcoin node (blocks on the test's word), through the
 * handlers and workers as deployed: a payment overpaid from a wallet of the test's own is seen and credited by the
 * chain-scanner worker; `POST /payments/{id}/refunds/` refunds the excess to another address of the test's; the
 * withdrawal-batcher worker dispatches the refund's withdrawal (a Bitcoin batch), the engine (as the transfers
 * consumer runs it) signs through KMS and broadcasts, the follower sees it mined and the chain-results worker
 * completes the withdrawal, the refund following it in the same transaction.
 */
let stack: TestStack;
let node: BitcoinNode;
let engine: ChainTxRuntime;
let chainScanner: typeof ChainScanner;
let batcher: typeof WithdrawalBatcher;
let chainResults: typeof ChainResults;
let payments: ReturnType<typeof caller>;
let refunds: ReturnType<typeof caller>;
let merchant: { tenantId: string; bearer: string };

const context = { getRemainingTimeInMillis: () => 16_000 };
const customerKey = secp256k1.utils.randomSecretKey();
const customer = p2wpkh(secp256k1.getPublicKey(customerKey, true), REGTEST);
/** Where the refund goes: another wallet of the test's (P2WPKH). */
const refundTo = p2wpkh(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), REGTEST).address as string;

const pass = () => chainScanner(undefined, context);
const balance = async () => (await getBalance(merchant.tenantId, 'main', 'BTC')).amount;

/** The confirmed balance of `address` on the node, in satoshis (Esplora's `chain_stats`). */
async function confirmedSats(address: string): Promise<bigint> {
  const res = await fetch(`${node.url}/address/${address}`);
  expect(res.status).toBe(200);
  const { chain_stats: s } = (await res.json()) as { chain_stats: { funded_txo_sum: number; spent_txo_sum: number } };
  return BigInt(s.funded_txo_sum - s.spent_txo_sum);
}

/** Pays `sats` to `to` from a coin of the customer's (funded by the node's faucet, mined); answers the txid. */
async function payFromCustomer(to: string, sats: bigint): Promise<string> {
  const funded = node.fund(customer.address as string, 1_000_000n);
  node.mine(1);
  const utxos = (await (await fetch(`${node.url}/address/${customer.address}/utxo`)).json()) as { txid: string; vout: number; value: number }[];
  const coin = utxos.find((u) => u.txid === funded);
  if (!coin) throw new Error(`the faucet's payment ${funded} is not among the customer's coins`);
  const tx = new Transaction();
  tx.addInput({ txid: hexToBytes(coin.txid), index: coin.vout, witnessUtxo: { script: customer.script, amount: BigInt(coin.value) } });
  tx.addOutputAddress(to, sats, REGTEST);
  tx.addOutputAddress(customer.address as string, BigInt(coin.value) - sats - 1_000n, REGTEST);
  tx.sign(customerKey);
  tx.finalize();
  const res = await fetch(`${node.url}/tx`, { method: 'POST', body: tx.hex });
  expect([res.status, await res.text()]).toEqual([200, tx.id]);
  return tx.id;
}

beforeAll(async () => {
  stack = await startTestStack({ pollers: false, http: false });
  node = await startBitcoinNode({ autoMine: false });
  // The deployment's Bitcoin settings, as the stack sets them for its own node, before the handlers load.
  Object.assign(process.env, { BTC_API_URL: node.url, BTC_NETWORK: 'local' });
  resetConfig();
  ({ handler: chainScanner } = await import('../../functions/chain-scanner/handler.js'));
  ({ handler: batcher } = await import('../../functions/withdrawal-batcher/handler.js'));
  ({ handler: chainResults } = await import('../../functions/chain-results/handler.js'));
  engine = chainTxRuntime();
  await putFixedRates();
  merchant = await tenantWithToken('Local BTC refunds merchant');
  payments = caller((await import('../../functions/payments/handler.js')).handler, () => merchant.bearer);
  refunds = caller((await import('../../functions/refunds/handler.js')).handler, () => merchant.bearer);
  // The scanner's cursor starts at the tip on its first pass.
  await pass();
});

afterAll(async () => {
  await node?.close();
  await stack?.stop();
  delete process.env.BTC_API_URL;
  delete process.env.BTC_NETWORK;
});

describe('BTC refunds on the local stack', () => {
  it("an overpayment's excess is refunded to the customer's address: paid on chain, the refund completed, the merchant charged its amount", async () => {
    const created = await payments('POST', '/payments/', { body: { amount: '60', currency: 'BTC' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ currency: 'BTC', amount_crypto: '0.00100000' });
    const id = created.body.transaction_id as string;
    // Twice what is due: 0.001 BTC too much.
    await payFromCustomer(created.body.address as string, 200_000n);
    await pass();
    node.mine(2);
    await pass();
    expect((await payments('GET', `/payments/${id}/`)).body).toMatchObject({ status: 'completed' });
    const credited = await balance();
    // 0.002 received, less the 1 % fee on the 0.001 due.
    expect(credited).toBe('0.00199');

    // What is refundable, and the smallest refund: the network's minimum to any Bitcoin address (the catalogue's
    // minimum, above every output type's dust limit) plus the network fee deducted from it.
    const refundable = await refunds('GET', `/payments/${id}/refundable/`);
    expect(refundable.status).toBe(200);
    const fee = refundable.body.estimated_network_fee as string;
    const btc = findCurrency('BTC');
    if (!btc) throw new Error('no BTC in the catalogue');
    const largestDust = fromBaseUnits(Object.values(BTC_DUST_LIMITS).reduce((a, b) => (a > b ? a : b)), 8);
    expect(refundable.body).toMatchObject({ currency: 'BTC', minimum: add(max(withdrawalMinimum(btc), largestDust), fee) });
    expect(gte(refundable.body.minimum as string, add(largestDust, fee))).toBe(true);
    expect(lte(refundable.body.minimum as string, refundable.body.refundable as string)).toBe(true);

    // Below the minimum: 422 below_minimum, nothing held.
    const tooSmall = await refunds('POST', `/payments/${id}/refunds/`, { body: { amount: sub(refundable.body.minimum as string, '0.00000001'), address: refundTo } });
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
    const open = await dynamoChainTxStore.listOpen('BTC');
    expect(open).toHaveLength(1);
    const request = open[0] as ChainTx;
    expect(request).toMatchObject({ purpose: 'withdrawal_batch' });
    const sent = await processChainTx(request.requestId, engine.deps);
    const attempt = currentAttempt(sent);
    if (!attempt || attempt.fees.type !== 'btc') throw new Error('not sent');
    node.mine(2);
    await followOnce('BTC', engine.deps);
    const confirmed = (await dynamoChainTxStore.get(request.requestId)) as ChainTx;
    expect(confirmed).toMatchObject({ status: 'confirmed', mined: { hash: attempt.hash } });
    expect((await chainResults(await resultAsRouted(confirmed), context as never)).batchItemFailures).toEqual([]);

    // Completed with what the chain took: amount_sent = amount - network_fee, the amount what the merchant was charged
    // (the fee held above what the chain took is refundable again).
    const done = (await refunds('GET', `/refunds/${refundId}/`)).body;
    expect(done).toMatchObject({ status: 'completed', transaction_hash: attempt.hash });
    expect(done.amount_sent).toBe(sub(done.amount as string, done.network_fee as string));
    expect(done.amount_sent).toBe(sub('0.001', fee));
    expect(lte(done.network_fee as string, fee)).toBe(true);
    expect(toBaseUnits(done.network_fee as string, 8)).toBe(BigInt(attempt.fees.fee));
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
