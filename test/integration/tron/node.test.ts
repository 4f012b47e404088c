import { toBaseUnits } from '../../../shared/domain/money.js';
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { startKmsServer } from '../../../infra/local/kms/server.js';
import type { KmsServer } from '../../../infra/local/kms/server.js';
import { startTronNode } from '../../../infra/local/tron.js';
import type { TronNode } from '../../../infra/local/tron.js';
import { KmsTxSigner } from '../../../shared/chain/engine/evm.js';
import type { CrashPoint } from '../../../shared/usecases/chain-tx/ports.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import { KmsTronSigner, TronGridChain } from '../../../shared/chain/engine/tron.js';
import { tronDepositAddress } from '../../../shared/chain/tron/create2.js';
import { toTronBase58, tronAddressFromBytes, tronAddressToEvmHex } from '../../../shared/domain/chain-addresses.js';
import { TronGridClient } from '../../../shared/chain/tron/grid.js';
import { tronDepositSource } from '../../../shared/chain/tron/deposit-source.js';
import { parseTronTransaction } from '../../../shared/chain/tron/transaction.js';
import { resetConfig } from '../../../shared/config/config.js';
import { dynamoChainTxStore } from '../../../shared/store/chain-tx.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { getPayment } from '../../../shared/store/payments.js';
import type { ChainTxDeps } from '../../../shared/usecases/chain-tx/ports.js';
import { followChainTx } from '../../../shared/usecases/chain-tx/follow-chain-txs.js';
import { processChainTx } from '../../../shared/usecases/chain-tx/process-chain-tx.js';
import { requestChainTx } from '../../../shared/usecases/chain-tx/request-chain-tx.js';
import { config } from '../../../shared/config/config.js';
import { factoryOf } from '../../../shared/runtime/deposit-addresses.js';
import { scannerRuntime } from '../../../shared/runtime/payments.js';
import { withdrawalsRuntime } from '../../../shared/runtime/withdrawals.js';
import { batcherDeps } from '../../support/withdrawals.js';
import { initCursor, scanOnce } from '../../../shared/usecases/scanner/scan.js';
import { onSweepBatchResult } from '../../../shared/usecases/payments/settle.js';
import { engineSweep } from '../../../shared/usecases/payments/sweep-engine.js';
import { factoryCalls } from '../../../shared/chain/evm/factory-calls.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { runWithdrawalBatch } from '../../../shared/usecases/withdrawals/process.js';
import { onWithdrawalChainResult } from '../../../shared/usecases/withdrawals/settle.js';
import { erc20TransferData } from '../../../shared/chain/evm/erc20.js';
import { startTestTable } from '../../support/dynamodb.js';
import type { TestTable } from '../../support/dynamodb.js';
import { caller, putFixedRates, tenantWithToken } from '../payments/support.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { outboxRecord } from '../../support/outbox.js';

/**
 * TRON end to end on the local TRON node (TronGrid-compatible API, signature and expiry checks), the local KMS
 * endpoint and DynamoDB Local: the engine's TRON path (sign without nonces, persist, broadcast, follow by txID,
 * re-sign only after a settled expiry, crash safety) and a USDTTRC20 payment from creation to `completed`.
 */
const tron = (fill: number): string => tronAddressFromBytes(Uint8Array.from([0x41, ...new Array<number>(20).fill(fill)]));
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const FACTORY = tron(0x31);
const IMPLEMENTATION = tron(0x32);
const TREASURY = tron(0x33);
const CONFIRMATIONS = 2;

let table: TestTable;
let kmsServer: KmsServer;
let kms: KMSClient;
let node: TronNode;
let hot: { keyId: string; address: string };
let seq = 0;

const recipient = (): string => tron(0x40 + (seq++ % 100));

function engineDeps(crash?: (point: CrashPoint, tx: ChainTx) => void): ChainTxDeps {
  const signer = new KmsTxSigner(kms);
  const chain = new TronGridChain(new TronGridClient(node.url));
  return {
    store: dynamoChainTxStore,
    chain: () => {
      throw new Error('no EVM chain here');
    },
    signer,
    tron: { chain: () => chain, signer: new KmsTronSigner(signer), expirationSeconds: 60, feeLimit: 50_000_000n },
    clock: () => new Date(),
    settings: { confirmations: CONFIRMATIONS, bumpAfterSeconds: 60, caps: { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, retryQueuedAfterSeconds: 0 },
    ...(crash ? { crash } : {}),
  };
}

/** The outbox event `eventId` as its message spells it (test/support/outbox.ts). */
const outboxItem = outboxRecord;

const usdtTransfer = (reference: string, to: string, units: bigint) =>
  requestChainTx(
    { network: 'TRX', wallet: hot, to: tronAddressToEvmHex(USDT), data: erc20TransferData(tronAddressToEvmHex(to), units), purpose: 'withdrawal', reference },
    engineDeps(),
  );

/** Mines a block and follows the request, until it is final. */
async function mineUntilFinal(requestId: string, deps = engineDeps()): Promise<ChainTx> {
  for (let i = 0; i < 40; i++) {
    node.mine(1);
    const tx = await dynamoChainTxStore.get(requestId);
    if (!tx) throw new Error(`no request ${requestId}`);
    const next = await followChainTx(tx, deps);
    if (next.status === 'confirmed' || next.status === 'reverted' || next.status === 'failed') return next;
  }
  throw new Error(`${requestId} did not become final`);
}

beforeAll(async () => {
  table = await startTestTable();
  kmsServer = await startKmsServer({ host: '127.0.0.1', port: 0 });
  kms = new KMSClient({ endpoint: kmsServer.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  const key = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
  const keyId = key.KeyMetadata?.KeyId ?? '';
  hot = { keyId, address: await new KmsTxSigner(kms).signerFor(keyId).getAddress() };
  node = await startTronNode({
    autoMine: false,
    tokens: [USDT],
    factory: { factory: FACTORY, implementation: IMPLEMENTATION, hotWallet: toTronBase58(hot.address), treasury: TREASURY },
    balances: { [toTronBase58(hot.address)]: 10_000_000_000n },
  });
  node.transfer(USDT, toTronBase58(hot.address), 1_000_000_000n);
  node.mine(1);
  process.env.FORWARDER_FACTORIES = JSON.stringify({ TRX: FACTORY });
  process.env.FORWARDER_IMPLEMENTATION_TRX = IMPLEMENTATION;
  process.env.TOKEN_CONTRACTS = JSON.stringify({ USDTTRC20: USDT });
  process.env.PAYMENT_CONFIRMATIONS = String(CONFIRMATIONS);
  process.env.TRON_API_URL = node.url;
  // The hot wallet's key: withdrawals on TRON are served.
  process.env.HOT_WALLET_KEY_ID = hot.keyId;
  resetConfig();
  await putFixedRates();
});

afterAll(async () => {
  await node?.close();
  await kmsServer?.close();
  await table?.stop();
  for (const k of ['FORWARDER_FACTORIES', 'FORWARDER_IMPLEMENTATION_TRX', 'TOKEN_CONTRACTS', 'PAYMENT_CONFIRMATIONS', 'TRON_API_URL', 'HOT_WALLET_KEY_ID']) {
    delete process.env[k];
  }
  resetConfig();
});

describe('the chain-transaction engine on TRON', () => {
  it('signs a TRC-20 transfer through KMS without a nonce, persists it, broadcasts it, follows it to confirmed', async () => {
    const to = recipient();
    const req = await usdtTransfer('tron-1', to, 5_000_000n);
    const sent = await processChainTx(req.requestId, engineDeps());
    expect(sent.status).toBe('pending');
    expect(sent.nonce).toBeUndefined();
    const attempt = sent.attempts[0];
    const parsed = parseTronTransaction(attempt?.raw ?? '');
    expect(parsed.txID).toBe(attempt?.hash);
    expect(parsed.contract).toMatchObject({ kind: 'trigger', owner: toTronBase58(hot.address), contract: USDT });
    expect(parsed.feeLimit).toBe(50_000_000n);
    expect(Date.parse(attempt?.expiresAt ?? '')).toBe(parsed.expiration);
    // A retry re-broadcasts the same bytes: the node answers "duplicate", nothing is sent twice.
    await expect(new TronGridChain(new TronGridClient(node.url)).broadcast(attempt?.raw ?? '')).resolves.toMatchObject({ kind: 'known' });
    await processChainTx(req.requestId, engineDeps());

    const done = await mineUntilFinal(req.requestId);
    expect(done).toMatchObject({ status: 'confirmed', mined: { hash: attempt?.hash, status: 1 } });
    expect(node.tokenBalance(USDT, to)).toBe(5_000_000n);
    expect(await outboxItem(`chain_tx:${req.requestId}:chain_tx.confirmed`)).toMatchObject({
      type: 'chain_tx.confirmed',
      payload: { tx_hash: attempt?.hash, network: 'TRX', nonce: null },
    });
  });

  it('crash safety: processors killed at seeded random points, retried twice at once; each transfer executes exactly once', async () => {
    const points: (CrashPoint | null)[] = ['after_sign', 'after_persist', 'after_broadcast', null];
    let state = 7;
    const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 12; run++) {
      const to = recipient();
      const before = node.tokenBalance(USDT, to);
      const executed = node.stats.executed;
      const req = await usdtTransfer(`tron-crash-${run}`, to, 1_000_000n + BigInt(run));
      const point = points[Math.floor(random() * points.length)] ?? null;
      const crashing = engineDeps((p) => {
        if (p === point) throw new Error(`killed at ${p}`);
      });
      await processChainTx(req.requestId, crashing).catch((error: unknown) => {
        if (!String(error).includes('killed')) throw error;
      });
      // The queue delivers the message again, twice at once.
      await Promise.allSettled([processChainTx(req.requestId, engineDeps()), processChainTx(req.requestId, engineDeps())]);
      const done = await mineUntilFinal(req.requestId);
      expect(done.status).toBe('confirmed');
      expect(done.attempts.map((a) => a.hash)).toContain(done.mined?.hash);
      expect(node.tokenBalance(USDT, to) - before).toBe(1_000_000n + BigInt(run));
      expect(node.stats.executed - executed).toBe(1);
    }
  });

  it('an expired transaction that never reached a block is re-signed once the expiry is settled; only the new one executes', async () => {
    const to = recipient();
    node.dropNextBroadcasts(1);
    const req = await usdtTransfer('tron-expiry', to, 7_000_000n);
    const first = await processChainTx(req.requestId, engineDeps());
    expect(first.status).toBe('pending');
    // Before the expiry: the follower only re-broadcasts (the node knows the id), it never signs anew.
    node.mine(5);
    const waiting = await followChainTx(first, engineDeps());
    expect(waiting.attempts).toHaveLength(1);
    // 60 s of lifetime = 20 blocks of 3 s, then CONFIRMATIONS more before the expiry is settled.
    node.mine(20 + CONFIRMATIONS);
    const resigned = await followChainTx((await dynamoChainTxStore.get(req.requestId)) as ChainTx, engineDeps());
    expect(resigned.attempts).toHaveLength(2);
    expect(resigned.attempts[1]?.hash).not.toBe(resigned.attempts[0]?.hash);
    const done = await mineUntilFinal(req.requestId);
    expect(done).toMatchObject({ status: 'confirmed', mined: { hash: resigned.attempts[1]?.hash } });
    expect(node.tokenBalance(USDT, to)).toBe(7_000_000n);
  });

  it('a hot wallet without TRX for the fee limit: the request waits (insufficient_gas), nothing is signed', async () => {
    const key = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
    const keyId = key.KeyMetadata?.KeyId ?? '';
    const poor = { keyId, address: await new KmsTxSigner(kms).signerFor(keyId).getAddress() };
    const req = await requestChainTx(
      {
        network: 'TRX',
        wallet: poor,
        to: tronAddressToEvmHex(USDT),
        data: erc20TransferData(tronAddressToEvmHex(recipient()), 1n),
        purpose: 'withdrawal',
        reference: 'tron-poor',
      },
      engineDeps(),
    );
    const after = await processChainTx(req.requestId, engineDeps());
    expect(after).toMatchObject({ status: 'queued', reason: 'insufficient_gas', attempts: [] });
    // What a merchant sees of a withdrawal waiting on such a request: processing, with the reason.
    const { describeWithdrawal } = await import('../../../shared/usecases/withdrawals/read-withdrawals.js');
    const t = await tenantWithToken('Tron waiting');
    await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDTTRC20', amount: '20', reason: 'test funding' }, ledgerRuntime());
    const { handler } = await import('../../../functions/withdrawals/handler.js');
    const call = caller(handler, () => t.bearer);
    const w = await call('POST', '/withdrawal/', { body: { amount: '5', currency: 'USDTTRC20', address: recipient() } });
    const batch = batcherDeps({ wallet: async () => poor, chainTx: engineDeps(), tokenContract: (c: string) => (c === 'USDTTRC20' ? USDT : null) });
    await runWithdrawalBatch(batch);
    await processChainTx(`TRX:${w.body.id as string}`, engineDeps());
    expect(await describeWithdrawal(t.tenantId, w.body.id as string, withdrawalsRuntime(config()))).toMatchObject({
      status: 'processing',
      status_reason: 'insufficient_gas',
      transaction_hash: null,
    });
    const read = await call('GET', `/withdrawal/${w.body.id as string}/`);
    expect([read.body.status, read.body.status_reason]).toEqual(['processing', 'insufficient_gas']);
  });
});

describe('the engine on TRON, a call that would revert', () => {
  it('a hot wallet without the token: the transfer waits (estimate_failed), nothing signed or burnt; with the token it goes through', async () => {
    const key = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
    const keyId = key.KeyMetadata?.KeyId ?? '';
    const wallet = { keyId, address: await new KmsTxSigner(kms).signerFor(keyId).getAddress() };
    node.fund(toTronBase58(wallet.address), 1_000_000_000n);
    const to = recipient();
    const req = await requestChainTx(
      {
        network: 'TRX',
        wallet,
        to: tronAddressToEvmHex(USDT),
        data: erc20TransferData(tronAddressToEvmHex(to), 3_000_000n),
        purpose: 'withdrawal',
        reference: 'tron-no-token',
      },
      engineDeps(),
    );
    const broadcasts = node.stats.broadcasts;
    expect(await processChainTx(req.requestId, engineDeps())).toMatchObject({ status: 'queued', reason: 'estimate_failed', attempts: [] });
    expect(node.stats.broadcasts).toBe(broadcasts);
    expect(node.trxBalance(toTronBase58(wallet.address))).toBe(1_000_000_000n);

    node.transfer(USDT, toTronBase58(wallet.address), 3_000_000n);
    node.mine(1);
    expect((await processChainTx(req.requestId, engineDeps())).status).toBe('pending');
    expect((await mineUntilFinal(req.requestId)).status).toBe('confirmed');
    expect(node.tokenBalance(USDT, to)).toBe(3_000_000n);
  });
});

describe('a USDTTRC20 payment end to end', () => {
  it('created with a TRON CREATE2 address, detected from block events, confirmed, swept through the factory by the engine (two in one call), credited', async () => {
    const t = await tenantWithToken('Tron merchant');
    const { handler } = await import('../../../functions/payments/handler.js');
    const call = caller(handler, () => t.bearer);
    const created = await call('POST', '/payments/', { body: { amount: '25', currency: 'USDTTRC20' } });
    expect(created.status).toBe(201);
    const id = created.body.transaction_id as string;
    const stored = await getPayment(t.tenantId, id);
    expect(created.body.address).toBe(tronDepositAddress(FACTORY, IMPLEMENTATION, stored?.salt ?? ''));
    const other = await call('POST', '/payments/', { body: { amount: '10', currency: 'USDTTRC20' } });
    const otherId = other.body.transaction_id as string;

    const client = new TronGridClient(node.url);
    const payments = scannerRuntime(config());
    const deps = {
      ...payments,
      source: tronDepositSource(client),
      sweep: engineSweep({
        factoryOf: (network) => factoryOf(config(), network),
        wallet: async () => hot,
        engine: engineDeps(),
        calls: factoryCalls,
      }),
    };
    await initCursor('TRX', node.head().number, deps);
    node.transfer(USDT, created.body.address as string, 25_000_000n);
    node.transfer(USDT, other.body.address as string, 10_000_000n);
    node.mine(1);
    await scanOnce('TRX', deps);
    const confirming = await getPayment(t.tenantId, id);
    expect(confirming?.status).toBe('confirming');
    // A pass without a new block writes nothing.
    await scanOnce('TRX', deps);
    expect((await getPayment(t.tenantId, id))?.version).toBe(confirming?.version);
    node.mine(CONFIRMATIONS);
    await scanOnce('TRX', deps);
    const sending = await getPayment(t.tenantId, id);
    expect(sending?.status).toBe('sending');
    // Both payments in one sweep: one request carrying both.
    expect((await getPayment(t.tenantId, otherId))?.sweepReference).toBe(sending?.sweepReference);

    const requestId = `TRX:${sending?.sweepReference}`;
    expect((await dynamoChainTxStore.get(requestId))?.items).toEqual([`${t.tenantId}:${id}`, `${t.tenantId}:${otherId}`]);
    await processChainTx(requestId, engineDeps());
    const swept = await mineUntilFinal(requestId);
    expect(swept.status).toBe('confirmed');
    expect(node.tokenBalance(USDT, TREASURY)).toBe(35_000_000n);
    expect(node.tokenBalance(USDT, created.body.address as string)).toBe(0n);
    expect(node.tokenBalance(USDT, other.body.address as string)).toBe(0n);

    const settlement = { ...payments, sweeps: dynamoChainTxStore };
    expect(await onSweepBatchResult(requestId, { ok: true, txHash: swept.mined?.hash ?? '' }, settlement, new Date())).toMatchObject({ completed: 2 });
    const done = await getPayment(t.tenantId, id);
    expect(done?.status).toBe('completed');
    expect((await getPayment(t.tenantId, otherId))?.status).toBe('completed');
    const balance = await getBalance(t.tenantId, 'main', 'USDTTRC20');
    // 25 + 10 USDT received, merchant pays the 1 % platform fee (minimum 0.1)
    expect(balance.amount).toBe('34.65');
  });
});

describe('a USDTTRC20 withdrawal end to end', () => {
  it('validated, held, batched, built and signed for TRON, broadcast to the TronGrid-compatible API, completed once', async () => {
    const t = await tenantWithToken('Tron payer');
    await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDTTRC20', amount: '100', reason: 'test funding' }, ledgerRuntime());
    const { handler } = await import('../../../functions/withdrawals/handler.js');
    const call = caller(handler, () => t.bearer);
    const to = recipient();
    const created = await call('POST', '/withdrawal/', { body: { amount: '12.5', currency: 'USDTTRC20', address: to } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const deps = batcherDeps({ wallet: async () => hot, chainTx: engineDeps(), tokenContract: (c: string) => (c === 'USDTTRC20' ? USDT : null) });
    expect(await runWithdrawalBatch(deps)).toMatchObject({ processing: 1 });
    const requestId = `TRX:${id}`;
    const sent = await processChainTx(requestId, engineDeps());
    expect(parseTronTransaction(sent.attempts[0]?.raw ?? '').contract).toMatchObject({
      kind: 'trigger',
      owner: toTronBase58(hot.address),
      contract: USDT,
      callValue: 0n,
    });
    const done = await mineUntilFinal(requestId);
    expect(done.status).toBe('confirmed');
    expect(node.tokenBalance(USDT, to)).toBe(12_500_000n);

    await onWithdrawalChainResult(t.tenantId, id, { ok: true, txHash: done.mined?.hash ?? '' }, new Date(), deps);
    await onWithdrawalChainResult(t.tenantId, id, { ok: true, txHash: done.mined?.hash ?? '' }, new Date(), deps);
    const read = await call('GET', `/withdrawal/${id}/`);
    expect([read.body.status, read.body.transaction_hash]).toEqual(['completed', done.mined?.hash]);
    // The recipient had never been activated: the activation fee was part of the network fee held and booked.
    expect([created.body.network_fee, created.body.total_deducted]).toEqual(['2.00000000', '14.62500000']);
    const balance = await getBalance(t.tenantId, 'main', 'USDTTRC20');
    expect(balance.locked).toBe('0');
    expect(Number(balance.amount)).toBeCloseTo(100 - Number(created.body.total_deducted), 6);
  });
});

describe('a custody USDTTRC20 withdrawal', () => {
  it('leaves the custody account whole, fees deducted, sent by the batcher and the engine like any withdrawal', async () => {
    const t = await tenantWithToken('Tron custody');
    const { custodyApi } = await import('../../support/custody.js');
    const custody = caller(custodyApi(), () => t.bearer);
    const accountId = (await custody('POST', '/custody/accounts', { body: { name: 'TRON treasury' } })).body.account_id as string;
    await creditAdjustment(
      { tenant_id: t.tenantId, account: `custody:${accountId}`, currency: 'USDTTRC20', amount: '40', reason: 'test funding' },
      ledgerRuntime(),
    );
    const to = recipient();
    const made = await custody('POST', '/custody/withdraw', { body: { account_id: accountId, blockchain: 'TRX', amount: 20, destination_address: to } });
    expect([made.status, made.body.status, made.body.amount]).toEqual([200, 'pending', 20]);

    const deps = batcherDeps({ wallet: async () => hot, chainTx: engineDeps(), tokenContract: (c: string) => (c === 'USDTTRC20' ? USDT : null) });
    expect(await runWithdrawalBatch(deps)).toMatchObject({ processing: 1 });
    const requestId = `TRX:${made.body.withdrawal_id as string}`;
    await processChainTx(requestId, engineDeps());
    const done = await mineUntilFinal(requestId);
    expect(done.status).toBe('confirmed');
    await onWithdrawalChainResult(t.tenantId, made.body.withdrawal_id as string, { ok: true, txHash: done.mined?.hash ?? '' }, new Date(), deps);
    // The recipient gets net_amount (20 less the fees, the activation fee of a new address included).
    expect(node.tokenBalance(USDT, to)).toBe(toBaseUnits(String(made.body.net_amount), 6));
    expect(await getBalance(t.tenantId, `custody:${accountId}`, 'USDTTRC20')).toEqual({ amount: '20', pending: '0', locked: '0' });
  });
});

describe('the withdrawal estimate on TRON', () => {
  it('an address new on the chain adds the TRC-20 activation fee (is_new_address, address_activation_fee); an activated one does not', async () => {
    const t = await tenantWithToken('Tron estimator');
    const { handler } = await import('../../../functions/withdrawals/handler.js');
    const call = caller(handler, () => t.bearer);
    const fresh = recipient();
    const first = await call('POST', '/withdrawal/estimate/', { body: { amount: '50', currency: 'USDTTRC20', address: fresh, final_amount: true } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ is_new_address: true, address_activation_fee: '1.00000000', network_fee: '2.00000000', total_deducted: '52.50000000' });
    node.fund(fresh, 1_000_000n);
    const second = await call('POST', '/withdrawal/estimate/', { body: { amount: '50', currency: 'USDTTRC20', address: fresh, final_amount: true } });
    expect(second.body).toMatchObject({ network_fee: '1.00000000', total_deducted: '51.50000000' });
    expect(second.body).not.toHaveProperty('is_new_address');
    // Without an address nobody can tell: the plain network fee.
    const none = await call('POST', '/withdrawal/estimate/', { body: { amount: '50', currency: 'USDTTRC20', final_amount: true } });
    expect(none.body).toMatchObject({ network_fee: '1.00000000' });
  });
});
