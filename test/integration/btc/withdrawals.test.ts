import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { startBitcoinNode } from '../../../infra/local/bitcoin.js';
import type { BitcoinNode } from '../../../infra/local/bitcoin.js';
import { startKmsServer } from '../../../infra/local/kms/server.js';
import type { KmsServer } from '../../../infra/local/kms/server.js';
import { EsploraClient } from '../../../shared/chain/btc/esplora.js';
import { depositAddress } from '../../../shared/chain/btc/p2wsh.js';
import { changeOutput } from '../../../shared/chain/btc/transaction.js';
import { BtcBatchBuilder, EsploraBtcChain, kmsBtcSigners } from '../../../shared/chain/engine/btc.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import { currentAttempt } from '../../../shared/domain/chain-tx.js';
import { creditEntry, MAIN } from '../../../shared/domain/ledger.js';
import type { WithdrawalState } from '../../../shared/domain/withdrawals.js';
import { openWithdrawal } from '../../../shared/domain/withdrawals.js';
import { dynamoHotCoins } from '../../../shared/store/btc-coins.js';
import { dynamoChainTxStore } from '../../../shared/store/chain-tx.js';
import { followChainTx } from '../../../shared/usecases/chain-tx/follow-chain-txs.js';
import type { ChainTxDeps, CrashPoint } from '../../../shared/usecases/chain-tx/ports.js';
import { processChainTx } from '../../../shared/usecases/chain-tx/process-chain-tx.js';
import { onBtcBatchResult } from '../../../shared/usecases/withdrawals/btc-batch.js';
import type { BatcherDeps } from '../../../shared/usecases/withdrawals/ports.js';
import { runWithdrawalBatch } from '../../../shared/usecases/withdrawals/process.js';
import { VirtualClock } from '../../support/clock.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { CHAIN_NETWORKS, serving } from '../../support/fakes/payments.js';
import type { FakeWithdrawals } from '../../support/fakes/withdrawals.js';
import { fakeWithdrawals } from '../../support/fakes/withdrawals.js';

/**
 * BTC withdrawals end to end on the local Bitcoin node (regtest, mined by hand), the local KMS-compatible server and
 * DynamoDB Local (chain-tx requests, the hot wallet's coins): deposits paid by the node's faucet to the hot wallet's
 * P2WSH addresses are its coins; the batcher puts two withdrawals into ONE request; the engine reserves coins, signs
 * each input through KMS, persists, broadcasts; the node verifies every signature; each recipient receives exactly
 * its amount in ONE transaction; the change comes back and is recorded as a coin. A stuck batch is replaced (BIP125)
 * at a higher fee on the same coins, and only one of its attempts is ever mined.
 */

let table: TestTable;
let kmsServer: KmsServer;
let kms: KMSClient;
let node: BitcoinNode;
let keyId: string;
let hotKey: Uint8Array;

beforeAll(async () => {
  [table, kmsServer, node] = await Promise.all([
    startTestTable('btc-withdrawals-test'),
    startKmsServer({ host: '127.0.0.1', port: 0 }),
    startBitcoinNode({ autoMine: false }),
  ]);
  kms = new KMSClient({ endpoint: kmsServer.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  keyId = (await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }))).KeyMetadata?.KeyId as string;
  hotKey = await kmsBtcSigners(kms)(keyId).publicKey();
});

afterAll(async () => {
  kms?.destroy();
  await Promise.all([table?.stop(), kmsServer?.close(), node?.close()]);
});

const WALLET_ADDRESS = '0x1111111111111111111111111111111111111111';
const esplora = (): EsploraClient => new EsploraClient(node.url);
const recipient = ['bcrt1q9gdzv2wl0cgdrac0mv40lj420axjjgu7dr4jne', 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'];

interface World {
  readonly fake: FakeWithdrawals;
  readonly batcher: BatcherDeps;
  readonly engine: ChainTxDeps;
  crashAt: CrashPoint | null;
}

function world(network: string): World {
  const clock = new VirtualClock(new Date());
  const fake = fakeWithdrawals({ clock, served: serving([...CHAIN_NETWORKS, 'BTC']) });
  const chainTx = { store: dynamoChainTxStore, clock: () => clock.now() };
  const w: World = {
    fake,
    batcher: { ...fake, chainTx, wallet: async () => ({ keyId, address: WALLET_ADDRESS }), btcBatch: { maxOutputs: 250 } },
    crashAt: null,
    engine: {
      store: dynamoChainTxStore,
      chain: () => {
        throw new Error('no EVM chain here');
      },
      signer: { sign: () => Promise.reject(new Error('no EVM signer here')) },
      btc: {
        chain: () => new EsploraBtcChain(esplora()),
        builder: new BtcBatchBuilder(kmsBtcSigners(kms), 'local'),
        // The coins of this test's own network name, so the tests never share coins.
        coins: {
          ...dynamoHotCoins,
          available: (_network, limit) => dynamoHotCoins.available(network, limit),
          reserve: (coins, batch) =>
            dynamoHotCoins.reserve(
              coins.map((c) => ({ ...c, network })),
              batch,
            ),
          ofBatch: (_network, batch) => dynamoHotCoins.ofBatch(network, batch),
          add: (coins) => dynamoHotCoins.add(coins.map((c) => ({ ...c, network }))),
        },
        confirmations: 2,
        replaceAfterBlocks: 3,
        maxCoins: 100,
      },
      clock: () => clock.now(),
      settings: { confirmations: 3, bumpAfterSeconds: 60, caps: { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, retryQueuedAfterSeconds: 60 },
      crash: (point) => {
        if (point === w.crashAt) throw new Error(`crash at ${point}`);
      },
    },
  };
  return w;
}

/** Deposits to the hot wallet's P2WSH addresses, paid by the faucet and mined, recorded as coins of `network`. */
async function deposits(network: string, values: bigint[]): Promise<void> {
  const paid = values.map((value, i) => {
    const address = depositAddress('t1', `${network}-payment-${i}`, hotKey, 'local');
    return { address, txid: node.fund(address.address, value), value };
  });
  node.mine(1);
  const coins = await Promise.all(
    paid.map(async ({ address, txid, value }, i) => {
      const utxo = (await esplora().addressUtxo(address.address)).find((u) => u.txid === txid);
      if (!utxo || BigInt(utxo.value) !== value) throw new Error('the deposit is not on chain');
      return { network, txid, vout: utxo.vout, value, tag: Buffer.from(address.witnessScript.subarray(1, 33)).toString('hex'), source: `payment:t1:p${i}` };
    }),
  );
  await dynamoHotCoins.add(coins);
}

let serial = 0;
async function pending(fake: FakeWithdrawals, amount: string, address: string): Promise<WithdrawalState> {
  serial++;
  const change = openWithdrawal(
    {
      id: `btc-w-${serial}`,
      tenantId: 't1',
      currency: 'BTC',
      network: 'BTC',
      token: 'BTC',
      amount,
      networkFee: '0.0001',
      platformFee: '0',
      totalFee: '0.0001',
      totalDeducted: (Number(amount) + 0.0001).toFixed(8),
      address,
      customId: null,
      callbackUrl: null,
      accountId: null,
      priceAmount: null,
      priceCurrency: null,
    },
    fake.clock.now(),
  );
  return fake.withdrawals.create({ change, dayTotal: null }, fake.clock.now());
}

async function funded(network: string): Promise<World> {
  const w = world(network);
  await w.fake.ledger.post({
    tenantId: 't1',
    entryId: 'funding',
    entry: creditEntry({ account: MAIN, type: 'adjustment', currency: 'BTC', amount: '1', reason: 'test funding' }),
    now: w.fake.clock.now(),
  });
  return w;
}

async function theBatch(w: World): Promise<ChainTx> {
  const ids = new Set(await Promise.all((await w.fake.withdrawals.queued('processing', 10)).map((x) => x.batch?.reference)));
  expect(ids.size).toBe(1);
  const [reference] = [...ids];
  const tx = await dynamoChainTxStore.get(`BTC:${reference}`);
  if (!tx) throw new Error('no request');
  return tx;
}

const utxosOf = async (address: string) => esplora().addressUtxo(address);

describe('BTC withdrawals on the local node', () => {
  it('pays two withdrawals in ONE KMS-signed transaction, each exactly, the change recorded as a hot coin', async () => {
    const w = await funded('BTC-one');
    await deposits('BTC-one', [40_000n, 60_000n, 30_000n]);
    const a = await pending(w.fake, '0.0003', recipient[0] as string);
    const b = await pending(w.fake, '0.00045', recipient[1] as string);
    expect((await runWithdrawalBatch(w.batcher)).processing).toBe(2);
    const request = await theBatch(w);
    expect(request.items).toEqual([`t1:${a.id}`, `t1:${b.id}`]);

    const sent = await processChainTx(request.requestId, w.engine);
    expect(sent.status).toBe('pending');
    const attempt = currentAttempt(sent);
    if (!attempt || attempt.fees.type !== 'btc') throw new Error('no Bitcoin attempt');
    const inMempool = await esplora().tx(attempt.hash);
    expect(inMempool?.status?.confirmed).toBe(false);

    node.mine(1);
    expect((await followChainTx(sent, w.engine)).status).toBe('pending'); // one confirmation of two
    node.mine(1);
    const confirmed = await followChainTx(await (dynamoChainTxStore.get(request.requestId) as Promise<ChainTx>), w.engine);
    expect(confirmed).toMatchObject({ status: 'confirmed', mined: { hash: attempt.hash } });

    // Each recipient: exactly its amount, from the one transaction.
    expect((await utxosOf(recipient[0] as string)).filter((u) => u.txid === attempt.hash).map((u) => u.value)).toEqual([30_000]);
    expect((await utxosOf(recipient[1] as string)).filter((u) => u.txid === attempt.hash).map((u) => u.value)).toEqual([45_000]);
    const mined = await esplora().tx(attempt.hash);
    expect(mined?.vout).toHaveLength(attempt.fees.change > 0n ? 3 : 2);
    expect(mined?.fee).toBe(Number(attempt.fees.fee));
    // The change: at the hot wallet's change address, recorded as an available coin.
    const changeAddress = changeOutput(hotKey, 'local').address;
    expect((await utxosOf(changeAddress)).filter((u) => u.txid === attempt.hash).map((u) => BigInt(u.value))).toEqual([attempt.fees.change]);
    expect(await dynamoHotCoins.available('BTC-one', 10)).toContainEqual(
      expect.objectContaining({ txid: attempt.hash, vout: 2, value: attempt.fees.change, source: `change:${request.reference}`, state: 'available' }),
    );
    // The coins it spent are spent.
    const spent = await dynamoHotCoins.ofBatch('BTC-one', request.reference);
    expect(spent.length).toBe(mined?.vin.length);
    expect(spent.every((c) => c.state === 'spent')).toBe(true);

    // Settlement: both complete with the txid, their network fees the shares of the fee.
    const settled = await onBtcBatchResult(request.requestId, { ok: true, txHash: attempt.hash }, w.fake.clock.now(), {
      withdrawals: w.fake.withdrawals,
      chainTx: { store: dynamoChainTxStore, clock: () => w.fake.clock.now() },
      wallet: async () => ({ keyId, address: WALLET_ADDRESS }),
    });
    expect(settled).toEqual({ completed: 2, single: 0, unchanged: 0 });
    const done = await Promise.all([a, b].map((x) => w.fake.withdrawals.get('t1', x.id)));
    expect(done.map((x) => x?.transactionHash)).toEqual([attempt.hash, attempt.hash]);
    const fees = done.map((x) => Math.round(Number(x?.networkFee) * 1e8));
    expect(fees.reduce((s, f) => s + f, 0)).toBe(Number(attempt.fees.fee));
  });

  it('replaces a stuck batch on the same coins at a higher fee; only one attempt is ever mined, each output paid once', async () => {
    const w = await funded('BTC-rbf');
    await deposits('BTC-rbf', [80_000n]);
    await pending(w.fake, '0.0005', recipient[0] as string);
    await runWithdrawalBatch(w.batcher);
    const request = await theBatch(w);
    // Signed and persisted at this height, not sent (a crash): the chain moves on three blocks without it.
    w.crashAt = 'after_persist';
    await expect(processChainTx(request.requestId, w.engine)).rejects.toThrow(/crash/);
    w.crashAt = null;
    node.mine(3);
    let tx = (await dynamoChainTxStore.get(request.requestId)) as ChainTx;
    const first = currentAttempt(tx);
    if (!first || first.fees.type !== 'btc') throw new Error('no Bitcoin attempt');
    // The persisted bytes go out first, as they are (into the mempool, which the node then keeps: no block yet).
    tx = await followChainTx(tx, w.engine);
    expect(tx.status).toBe('pending');
    expect((await esplora().tx(first.hash))?.txid).toBe(first.hash);
    // Still unmined three blocks after its signature: replaced, the node accepting it under BIP125.
    tx = await followChainTx(tx, w.engine);
    expect(tx.attempts).toHaveLength(2);
    const second = currentAttempt(tx);
    if (!second || second.fees.type !== 'btc') throw new Error('no replacement');
    expect(second.fees.feeRate).toBeGreaterThan(first.fees.feeRate);
    expect(second.fees.fee).toBeGreaterThanOrEqual(first.fees.fee + second.gasLimit);
    expect(await esplora().tx(first.hash)).toBeNull();
    // The same coins: the replacement spends exactly what the first attempt spent.
    const replacement = await esplora().tx(second.hash);
    const spentByFirst = Transaction.fromRaw(hex.decode(first.raw), { allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true });
    const firstInputs = Array.from(
      { length: spentByFirst.inputsLength },
      (_, i) => `${hex.encode(spentByFirst.getInput(i).txid as Uint8Array)}:${spentByFirst.getInput(i).index}`,
    );
    expect(replacement?.vin.map((i) => `${i.txid}:${i.vout}`).sort()).toEqual(firstInputs.sort());
    node.mine(2);
    tx = await followChainTx(tx, w.engine);
    expect(tx).toMatchObject({ status: 'confirmed', mined: { hash: second.hash } });
    expect((await esplora().txStatus(first.hash))?.confirmed ?? false).toBe(false);
    expect((await utxosOf(recipient[0] as string)).filter((u) => u.txid === first.hash || u.txid === second.hash).map((u) => u.value)).toEqual([50_000]);
  });
});
