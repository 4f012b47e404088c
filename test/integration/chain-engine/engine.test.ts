import { jest } from '@jest/globals';
import { Transaction, Wallet } from 'ethers';
import type { CrashPoint } from '../../../shared/usecases/chain-tx/ports.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import { dynamoChainTxStore, nextNonce } from '../../../shared/store/chain-tx.js';
import { followOnce, walletHealth } from '../../../shared/usecases/chain-tx/follow-chain-txs.js';
import { cancelChainTx, processChainTx } from '../../../shared/usecases/chain-tx/process-chain-tx.js';
import { requestChainTx } from '../../../shared/usecases/chain-tx/request-chain-tx.js';
import type { ChainTxDeps } from '../../../shared/usecases/chain-tx/ports.js';
import { resetConfig } from '../../../shared/config/config.js';
import type { SQSEvent, ScheduledEvent } from 'aws-lambda';
import { KmsTxSigner } from '../../../shared/chain/engine/evm.js';
import { NETWORK, SimulatedCrash, prng, startEngineEnv } from './support.js';
import type { EngineEnv } from './support.js';
import { outboxRecord } from '../../support/outbox.js';

const VALUE = 1000n;
const recipient = (): string => Wallet.createRandom().address;

async function followUntilFinal(env: EngineEnv, deps: ChainTxDeps, requestIds: readonly string[], rounds = 50): Promise<ChainTx[]> {
  for (let i = 0; i < rounds; i++) {
    const txs = await Promise.all(requestIds.map((id) => dynamoChainTxStore.get(id)));
    if (txs.every((tx) => tx !== undefined && (tx.status === 'confirmed' || tx.status === 'reverted' || tx.status === 'failed'))) {
      return txs as ChainTx[];
    }
    await followOnce(NETWORK, deps);
  }
  throw new Error('requests did not become final');
}

/** The outbox event `eventId` as its message spells it (test/support/outbox.ts). */
const outboxItem = outboxRecord;

/** The nonces of the mined transactions of these requests (from the chain), sorted. */
async function minedNonces(env: EngineEnv, txs: readonly ChainTx[]): Promise<number[]> {
  const nonces = await Promise.all(
    txs.map(async (tx) => {
      const mined = await env.provider.getTransaction(tx.mined?.hash ?? '');
      if (!mined) throw new Error(`mined tx of ${tx.requestId} not found`);
      return mined.nonce;
    }),
  );
  return nonces.sort((a, b) => a - b);
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('chain-transaction engine on anvil, KMS server and DynamoDB Local', () => {
  let env: EngineEnv;

  beforeAll(async () => {
    env = await startEngineEnv();
  });

  afterAll(async () => {
    await env?.stop();
  });

  test('a request signed through KMS is broadcast, mined, followed to confirmed, with its outbox event', async () => {
    const wallet = await env.wallet();
    const deps = env.deps();
    const to = recipient();
    const req = await requestChainTx({ network: NETWORK, wallet, to, value: VALUE.toString(), purpose: 'sweep', reference: 'single-1' }, deps);
    expect(req.status).toBe('queued');
    // Same fields again: the same request; other fields: a conflict.
    await expect(requestChainTx({ network: NETWORK, wallet, to, value: VALUE, purpose: 'sweep', reference: 'single-1' }, deps)).resolves.toMatchObject({
      requestId: req.requestId,
    });
    await expect(requestChainTx({ network: NETWORK, wallet, to, value: 1n, purpose: 'sweep', reference: 'single-1' }, deps)).rejects.toMatchObject({
      code: 'invalid_state',
    });
    expect(await outboxItem(`chain_tx:${req.requestId}:chain_tx.requested`)).toMatchObject({ type: 'chain_tx.requested' });

    const sent = await processChainTx(req.requestId, deps);
    expect(sent).toMatchObject({ status: 'pending', nonce: 0 });
    const raw = sent.attempts[0]?.raw ?? '';
    expect(Transaction.from(raw).from).toBe(wallet.address);
    expect(Transaction.from(raw).type).toBe(2);

    const [done] = await followUntilFinal(env, deps, [req.requestId]);
    expect(done).toMatchObject({ status: 'confirmed', mined: { hash: sent.attempts[0]?.hash, status: 1 } });
    expect(await env.provider.getBalance(to)).toBe(VALUE);
    const event = await outboxItem(`chain_tx:${req.requestId}:chain_tx.confirmed`);
    expect(event).toMatchObject({
      type: 'chain_tx.confirmed',
      tenant_id: 'platform',
      payload: { network: NETWORK, reference: 'single-1', purpose: 'sweep', tx_hash: sent.attempts[0]?.hash, status: 'confirmed', gas_used: '21000' },
    });
    const payload = event?.payload as Record<string, unknown>;
    // Numbers are read wrapped (NumberValue): compare their text.
    expect(String(payload.nonce)).toBe('0');
    expect(String(payload.block_number)).toBe(String(done?.mined?.blockNumber));
    // Processing a final request again changes nothing.
    await expect(processChainTx(req.requestId, deps)).resolves.toMatchObject({ status: 'confirmed', version: done?.version });
  });

  test('30 requests processed concurrently by several processors: nonces 0..29, no gap, no duplicate, each mined once', async () => {
    const wallet = await env.wallet();
    const to = recipient();
    const processors = range(4).map(() => env.deps());
    const first = processors[0] as ChainTxDeps;
    const requests = await Promise.all(
      range(30).map((i) =>
        requestChainTx({ network: NETWORK, wallet, to, value: VALUE, purpose: i % 2 ? 'sweep' : 'withdrawal', reference: `conc-${i}` }, first),
      ),
    );
    const ids = requests.map((r) => r.requestId);
    // Every processor processes every request (as if each message were delivered to several consumers), in its own order.
    await Promise.all(
      processors.map(async (deps, p) => {
        const order = [...ids].sort(() => (prng(p + 1)() < 0.5 ? -1 : 1));
        const rnd = prng(100 + p);
        order.sort(() => rnd() - 0.5);
        // Each processor works 5 messages at a time (a Lambda with batch size 5): 20 concurrent in all.
        const queue = [...order];
        await Promise.all(
          range(5).map(async () => {
            for (let id = queue.shift(); id !== undefined; id = queue.shift()) await processChainTx(id, deps);
          }),
        );
      }),
    );
    const done = await followUntilFinal(env, first, ids);
    expect(done.map((t) => t.status)).toEqual(ids.map(() => 'confirmed'));
    expect(done.map((t) => t.nonce).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(range(30));
    expect(await minedNonces(env, done)).toEqual(range(30));
    expect(await env.provider.getTransactionCount(wallet.address, 'latest')).toBe(30);
    expect(await env.provider.getBalance(to)).toBe(30n * VALUE);
    expect(await nextNonce(NETWORK, wallet.address)).toBe(30);
  });

  test('crash safety: processors killed at random points over 30 seeded runs; retried, each request executes exactly once', async () => {
    const wallet = await env.wallet();
    const to = recipient();
    const points: (CrashPoint | null)[] = ['after_nonce', 'after_sign', 'after_persist', 'after_broadcast', null];
    const rnd = prng(20261121);
    const ids: string[] = [];
    const crashes = new Map<CrashPoint, number>();
    for (let run = 0; run < 30; run++) {
      // Two requests per run, processed concurrently, each by a processor that dies at a random point.
      const batch = await Promise.all(
        [0, 1].map((k) => requestChainTx({ network: NETWORK, wallet, to, value: VALUE, purpose: 'sweep', reference: `crash-${run}-${k}` }, env.deps())),
      );
      await Promise.all(
        batch.map(async (req) => {
          const point = points[Math.floor(rnd() * points.length)] ?? null;
          const dying = env.deps({
            crash: (at) => {
              if (at === point) throw new SimulatedCrash(at);
            },
          });
          try {
            await processChainTx(req.requestId, dying);
          } catch (error) {
            if (!(error instanceof SimulatedCrash)) throw error;
            if (point) crashes.set(point, (crashes.get(point) ?? 0) + 1);
          }
        }),
      );
      // Redelivery: sometimes the message comes back (twice), sometimes only the follower finds the request.
      for (const req of batch) {
        const deliveries = Math.floor(rnd() * 3);
        for (let d = 0; d < deliveries; d++) await processChainTx(req.requestId, env.deps());
      }
      ids.push(...batch.map((r) => r.requestId));
    }
    expect(crashes.size).toBe(4);
    const done = await followUntilFinal(env, env.deps(), ids);
    expect(done.every((t) => t.status === 'confirmed')).toBe(true);
    expect(await minedNonces(env, done)).toEqual(range(60));
    expect(await env.provider.getTransactionCount(wallet.address, 'latest')).toBe(60);
    expect(await env.provider.getBalance(to)).toBe(60n * VALUE);
  });

  test('a nonce released by a cancelled request is taken by the next allocation', async () => {
    const wallet = await env.wallet();
    const to = recipient();
    const deps = env.deps({
      crash: (at, tx) => {
        if (at === 'after_nonce' && tx.reference === 'free-a') throw new SimulatedCrash(at);
      },
    });
    const a = await requestChainTx({ network: NETWORK, wallet, to, value: VALUE, purpose: 'withdrawal', reference: 'free-a' }, deps);
    await expect(processChainTx(a.requestId, deps)).rejects.toBeInstanceOf(SimulatedCrash);
    const b = await requestChainTx({ network: NETWORK, wallet, to, value: VALUE, purpose: 'withdrawal', reference: 'free-b' }, deps);
    expect(await processChainTx(b.requestId, deps)).toMatchObject({ nonce: 1, status: 'pending' });
    expect(await cancelChainTx(a.requestId, deps)).toMatchObject({ status: 'cancelled', nonce: 0 });
    const c = await requestChainTx({ network: NETWORK, wallet, to, value: VALUE, purpose: 'withdrawal', reference: 'free-c' }, deps);
    expect(await processChainTx(c.requestId, deps)).toMatchObject({ nonce: 0, status: 'pending' });
    const done = await followUntilFinal(env, deps, [b.requestId, c.requestId]);
    expect(done.map((t) => t.status)).toEqual(['confirmed', 'confirmed']);
    expect(await env.provider.getTransactionCount(wallet.address, 'latest')).toBe(2);
    expect(await env.provider.getBalance(to)).toBe(2n * VALUE);
  });

  test('fee bump: a stuck transaction is re-signed with the same nonce; exactly one tracked hash is mined and recorded', async () => {
    const wallet = await env.wallet();
    const to = recipient();
    let crashBump = true;
    const deps = env.deps({
      settings: { bumpAfterSeconds: 30 },
      crash: (at) => {
        if (at === 'after_bump_persist' && crashBump) {
          crashBump = false;
          throw new SimulatedCrash(at);
        }
      },
    });
    const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    await env.provider.send('evm_setAutomine', [false]);
    try {
      const req = await requestChainTx({ network: NETWORK, wallet, to, value: VALUE, purpose: 'withdrawal', reference: 'bump-1' }, deps);
      const sent = await processChainTx(req.requestId, deps);
      expect(sent.status).toBe('pending');
      await followOnce(NETWORK, deps); // not due yet: re-broadcast of the same bytes
      expect((await dynamoChainTxStore.get(req.requestId))?.attempts).toHaveLength(1);

      env.advance(31);
      await followOnce(NETWORK, deps); // bump signed and persisted, then the follower "dies" before broadcasting
      const afterCrash = await dynamoChainTxStore.get(req.requestId);
      expect(afterCrash).toMatchObject({ status: 'signed' });
      expect(afterCrash?.attempts).toHaveLength(2);
      await followOnce(NETWORK, deps); // broadcasts the persisted bump
      expect((await dynamoChainTxStore.get(req.requestId))?.status).toBe('pending');

      env.advance(31);
      await followOnce(NETWORK, deps); // second bump
      const bumped = await dynamoChainTxStore.get(req.requestId);
      expect(bumped?.attempts).toHaveLength(3);
      const fees = bumped?.attempts.map((a) => (a.fees.type === 2 ? a.fees.maxPriorityFeePerGas : a.fees.type === 0 ? a.fees.gasPrice : 0n)) ?? [];
      expect(fees[1]! * 100n >= fees[0]! * 110n && fees[2]! * 100n >= fees[1]! * 110n).toBe(true);
      expect(new Set(bumped?.attempts.map((a) => Transaction.from(a.raw).nonce))).toEqual(new Set([0]));

      await env.provider.send('evm_mine', []);
      const [done] = await followUntilFinal(env, deps, [req.requestId]);
      const receipts = await Promise.all((bumped?.attempts ?? []).map((a) => env.provider.getTransactionReceipt(a.hash)));
      const mined = receipts.filter((r) => r !== null);
      expect(mined).toHaveLength(1);
      expect(done).toMatchObject({ status: 'confirmed', mined: { hash: mined[0]?.hash } });
      expect(done?.mined?.hash).toBe(bumped?.attempts[2]?.hash);
      expect(await env.provider.getTransactionCount(wallet.address, 'latest')).toBe(1);
      expect(await env.provider.getBalance(to)).toBe(VALUE);
      const event = await outboxItem(`chain_tx:${req.requestId}:chain_tx.confirmed`);
      expect((event?.payload as Record<string, unknown>).tx_hashes).toEqual(bumped?.attempts.map((a) => a.hash));
    } finally {
      quiet.mockRestore();
      await env.provider.send('evm_setAutomine', [true]);
    }
  });

  test('a nonce taken by a transaction outside the engine: the request fails with chain_tx.failed, nothing mined for it', async () => {
    const wallet = await env.wallet();
    const to = recipient();
    const deps = env.deps();
    await env.provider.send('evm_setAutomine', [false]);
    try {
      const req = await requestChainTx({ network: NETWORK, wallet, to, value: VALUE, purpose: 'withdrawal', reference: 'foreign-1' }, deps);
      const sent = await processChainTx(req.requestId, deps);
      const ours = sent.attempts[0];
      if (!ours || ours.fees.type !== 2) throw new Error('expected an EIP-1559 attempt');
      // Someone else with the key replaces it (same nonce, higher fees, another recipient).
      const foreign = await new KmsTxSigner(env.kms).signerFor(wallet.keyId).signTransaction({
        chainId: BigInt(env.anvil.chainId),
        to: recipient(),
        value: 1n,
        nonce: 0,
        gasLimit: 21000n,
        type: 2,
        maxFeePerGas: ours.fees.maxFeePerGas * 2n,
        maxPriorityFeePerGas: ours.fees.maxPriorityFeePerGas * 2n,
      });
      await env.provider.send('eth_sendRawTransaction', [foreign]);
      await env.provider.send('evm_mine', []);
      const [done] = await followUntilFinal(env, deps, [req.requestId]);
      expect(done).toMatchObject({ status: 'failed', failure: 'nonce_consumed' });
      expect(await env.provider.getTransactionReceipt(ours.hash)).toBeNull();
      expect(await env.provider.getBalance(to)).toBe(0n);
      expect(await outboxItem(`chain_tx:${req.requestId}:chain_tx.failed`)).toMatchObject({
        type: 'chain_tx.failed',
        payload: { status: 'failed', tx_hash: null, failure: 'nonce_consumed', purpose: 'withdrawal' },
      });
    } finally {
      await env.provider.send('evm_setAutomine', [true]);
    }
  });

  test('insufficient gas: the request waits with reason insufficient_gas, nothing lost; funded, it goes through', async () => {
    const wallet = await env.wallet(0n);
    const to = recipient();
    const deps = env.deps();
    const req = await requestChainTx({ network: NETWORK, wallet, to, value: VALUE, purpose: 'sweep', reference: 'gas-1' }, deps);
    expect(await processChainTx(req.requestId, deps)).toMatchObject({ status: 'queued', reason: 'insufficient_gas' });
    await followOnce(NETWORK, deps);
    expect(await dynamoChainTxStore.get(req.requestId)).toMatchObject({ status: 'queued', reason: 'insufficient_gas', attempts: [] });
    const health = await walletHealth(NETWORK, wallet.address, deps);
    expect(health).toMatchObject({ balance: '0', insufficientGas: 1, requestIds: [req.requestId], metric: 'ChainTxInsufficientGas' });
    expect(await nextNonce(NETWORK, wallet.address)).toBeUndefined();

    await env.provider.send('anvil_setBalance', [wallet.address, '0xde0b6b3a7640000']);
    const [done] = await followUntilFinal(env, deps, [req.requestId]);
    expect(done).toMatchObject({ status: 'confirmed', nonce: 0 });
    expect(done?.reason).toBeUndefined();
    expect(await env.provider.getBalance(to)).toBe(VALUE);
    expect((await walletHealth(NETWORK, wallet.address, deps)).insufficientGas).toBe(0);
  });

  test('workers: the transfers consumer reports only bad messages as failures; the follower runs under its lease', async () => {
    Object.assign(process.env, {
      EVM_RPC_URLS: JSON.stringify({ [NETWORK]: env.anvil.rpcUrl }),
      AWS_ENDPOINT_URL_KMS: env.kmsServer.url,
      CHAIN_TX_CONFIRMATIONS: '1',
      CHAIN_TX_RETRY_QUEUED_AFTER_SECONDS: '0',
    });
    resetConfig();
    // The workers wire themselves from that configuration when they load.
    const { handler: chainTxHandler } = await import('../../../functions/chain-tx/handler.js');
    const { handler: followerHandler } = await import('../../../functions/chain-tx-follower/handler.js');
    const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const wallet = await env.wallet();
      const to = recipient();
      const deps = env.deps();
      const req = await requestChainTx({ network: NETWORK, wallet, to, value: VALUE, purpose: 'sweep', reference: 'worker-1' }, deps);
      const record = (messageId: string, body: string) => ({ messageId, body }) as SQSEvent['Records'][number];
      const event = {
        Records: [
          record('m1', JSON.stringify({ request_id: req.requestId })),
          record('m2', 'not json'),
          record('m3', JSON.stringify({ request_id: `${NETWORK}:missing` })),
          // Redelivered, as the event router forwards the request's outbox event.
          record(
            'm4',
            JSON.stringify({
              event_id: `chain_tx:${req.requestId}:chain_tx.requested`,
              tenant_id: req.tenantId,
              type: 'chain_tx.requested',
              occurred_at: req.createdAt,
              payload: { request_id: req.requestId, network: NETWORK, reference: req.reference, purpose: req.purpose },
            }),
          ),
        ],
      } as SQSEvent;
      expect(await chainTxHandler(event)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }, { itemIdentifier: 'm3' }] });
      expect(await dynamoChainTxStore.get(req.requestId)).toMatchObject({ status: 'pending', attempts: [expect.anything()] });

      const context = { getRemainingTimeInMillis: () => 10_500 };
      expect(await dynamoChainTxStore.acquireLease(NETWORK, 'someone-else', new Date(), 60)).toBe(true);
      expect(await followerHandler({} as ScheduledEvent, context)).toEqual({ [NETWORK]: null });
      await dynamoChainTxStore.releaseLease(NETWORK, 'someone-else');
      expect((await followerHandler({} as ScheduledEvent, context))[NETWORK]).toMatchObject({ confirmed: 1 });
      expect(await dynamoChainTxStore.get(req.requestId)).toMatchObject({ status: 'confirmed' });
      expect(await env.provider.getBalance(to)).toBe(VALUE);
    } finally {
      quiet.mockRestore();
    }
  });
});
