import { jest } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { Interface, Transaction, Wallet, toBeHex } from 'ethers';
import type { JsonRpcSigner } from 'ethers';
import type { CrashPoint } from '../../../shared/usecases/chain-tx/ports.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import { requestIdOf, trackedHashes } from '../../../shared/domain/chain-tx.js';
import { ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import { deployTestToken, mintTestToken, TEST_TOKENS } from '../../../infra/local/dev/deploy.js';
import { resetConfig } from '../../../shared/config/config.js';
import { add, normalize, sub, toBaseUnits } from '../../../shared/domain/money.js';
import { dynamoChainTxStore, nextNonce } from '../../../shared/store/chain-tx.js';
import { db, tableName } from '../../../shared/store/client.js';
import { keys } from '../../../shared/store/keys.js';
import { getBalance, listAllEntries } from '../../../shared/store/ledger.js';
import { outboxEventFromItem } from '../../../shared/store/outbox.js';
import type { ChainTxDeps } from '../../../shared/usecases/chain-tx/ports.js';
import { followOnce, walletHealth } from '../../../shared/usecases/chain-tx/follow-chain-txs.js';
import { processChainTx } from '../../../shared/usecases/chain-tx/process-chain-tx.js';
import { batcherDeps } from '../../support/withdrawals.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import type { BatcherDeps } from '../../../shared/usecases/withdrawals/ports.js';
import { runWithdrawalBatch } from '../../../shared/usecases/withdrawals/process.js';
import { messageBody } from '../../../shared/store/outbox.js';
import { queuesFor } from '../../../shared/domain/events.js';
import { buildContractsOutOfProcess } from '../chain/contracts-build.js';
import { NETWORK, SimulatedCrash, prng, startEngineEnv } from '../chain-engine/support.js';
import type { EngineEnv } from '../chain-engine/support.js';
import { updateTenantSettings } from '../../../shared/store/tenants.js';
import { caller, putFixedRates, tenantWithToken } from '../payments/support.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';

/**
 * Withdrawals end to end on anvil, the local KMS endpoint and DynamoDB Local: the HTTP handler creates them,
 * the batcher hands them to the chain-transaction engine, the transfers consumer signs and broadcasts (killed
 * at random points, redelivered, twice at once), the follower follows (fee bumps included), and the chain
 * results reach the chain-results worker, which completes the withdrawals. Every withdrawal must be executed exactly once
 * on chain and debited exactly once in the ledger.
 */

/** The catalogue network of USDTERC20: the engine's requests are keyed by it; here it is the anvil chain. */
const ETH = 'ETH';
const CURRENCY = 'USDTERC20';
const DECIMALS = TEST_TOKENS.USDT.decimals;
const FUNDING = '1000000';
const RUNS = 20;
const PER_RUN = 3;

const erc20 = new Interface(ERC20_ABI);
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

type Handler = (event: SQSEvent) => Promise<SQSBatchResponse>;

interface Created {
  readonly id: string;
  readonly to: string;
  readonly amount: string;
  readonly totalDeducted: string;
}

describe('withdrawals end to end: HTTP -> batcher -> chain-tx engine on anvil (crashing) -> chain-results', () => {
  let env: EngineEnv;
  let hot: { keyId: string; address: string };
  let usdt: string;
  let tenantId: string;
  let call: ReturnType<typeof caller>;
  let batcher: () => Promise<{ processing: number; completed: number; failed: number; skipped: number }>;
  let transfers: Handler;
  let chainResults: Handler;
  /** Every withdrawal sent so far (the hot wallet's transactions are exactly theirs). */
  const sent: { readonly created: Created; readonly tx: ChainTx }[] = [];
  let quiet: { mockRestore(): void }[] = [];

  /** Engine deps of one "processor" for the ETH network (the anvil chain), optionally dying at a point. */
  const engine = (options: { crash?: (point: CrashPoint, tx: ChainTx) => void; skewSeconds?: number } = {}): ChainTxDeps => {
    const base = env.deps({ crash: options.crash });
    const chain = base.chain(NETWORK);
    const skew = (options.skewSeconds ?? 0) * 1000;
    return {
      ...base,
      chain: (network: string) => {
        if (network !== ETH) throw new Error(`unexpected network ${network}`);
        return chain;
      },
      clock: () => new Date(Date.now() + skew),
    };
  };

  const tokenBalance = async (address: string): Promise<bigint> =>
    BigInt(await env.provider.call({ to: usdt, data: erc20.encodeFunctionData('balanceOf', [address]) }));

  const outbox = async (eventId: string): Promise<Record<string, unknown> | undefined> =>
    (await db().send(new GetCommand({ TableName: tableName(), Key: keys.outbox(eventId), ConsistentRead: true }))).Item;

  /** The SQS message the event router sends for an outbox event, checked to go to `queue`. */
  const routed = async (eventId: string, queue: string, messageId: string): Promise<SQSEvent['Records'][number]> => {
    const item = await outbox(eventId);
    if (!item) throw new Error(`no outbox event ${eventId}`);
    const event = outboxEventFromItem(item);
    expect(queuesFor(event.type)).toContain(queue);
    return { messageId, body: messageBody(event) } as SQSEvent['Records'][number];
  };

  const create = async (amount: string): Promise<Created> => {
    const to = Wallet.createRandom().address;
    const res = await call('POST', '/withdrawal/', { body: { amount, currency: CURRENCY, address: to } });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('pending');
    return { id: res.body.id as string, to, amount, totalDeducted: res.body.total_deducted as string };
  };

  async function followUntilFinal(requestIds: readonly string[], rounds = 40): Promise<ChainTx[]> {
    const deps = engine();
    for (let i = 0; i < rounds; i++) {
      const txs = await Promise.all(requestIds.map((id) => dynamoChainTxStore.get(id)));
      if (txs.every((tx) => tx !== undefined && (tx.status === 'confirmed' || tx.status === 'reverted' || tx.status === 'failed'))) return txs as ChainTx[];
      await followOnce(ETH, deps);
    }
    throw new Error('requests did not become final');
  }

  /** Delivers the request's chain_tx.confirmed to the chain-results worker once or twice (in one batch, or two concurrent invocations). */
  async function deliverResult(requestId: string, times: 1 | 2, concurrent: boolean): Promise<void> {
    const record = await routed(`chain_tx:${requestId}:chain_tx.confirmed`, 'chain-results', `result-${requestId}`);
    const answers = concurrent
      ? await Promise.all(range(times).map(() => chainResults({ Records: [record] } as SQSEvent)))
      : [await chainResults({ Records: range(times).map(() => record) } as SQSEvent)];
    for (const answer of answers) expect(answer.batchItemFailures).toEqual([]);
  }

  /** Final checks of one withdrawal: executed once on chain, completed with the mined hash, debited once. */
  async function expectExecutedOnce(w: Created, tx: ChainTx): Promise<void> {
    expect(tx).toMatchObject({ status: 'confirmed', purpose: 'withdrawal', reference: w.id, tenantId });
    const hashes = trackedHashes(tx);
    expect(hashes).toContain(tx.mined?.hash);
    // Exactly one tracked hash has a receipt: one transaction for this nonce, whichever attempt it was.
    const receipts = await Promise.all(hashes.map((h) => env.provider.getTransactionReceipt(h)));
    const mined = receipts.filter((r) => r !== null);
    expect(mined.map((r) => r?.hash)).toEqual([tx.mined?.hash]);
    expect(mined[0]?.status).toBe(1);
    expect(Transaction.from(tx.attempts[0]?.raw).nonce).toBe(tx.nonce);
    // The recipient received the amount exactly once.
    expect(await tokenBalance(w.to)).toBe(toBaseUnits(w.amount, DECIMALS));
    const got = (await call('GET', `/withdrawal/${w.id}/`)).body;
    expect(got).toMatchObject({ id: w.id, status: 'completed', transaction_hash: tx.mined?.hash });
    // One hold and one completion in the journal: no double debit.
    const entries = (await listAllEntries(tenantId)).filter((e) => e.reference?.id === w.id);
    expect(entries.map((e) => e.type).sort()).toEqual(['withdrawal', 'withdrawal_hold']);
  }

  beforeAll(async () => {
    const started = await Promise.allSettled([startEngineEnv(), buildContractsOutOfProcess()] as const);
    if (started[0].status === 'fulfilled') env = started[0].value;
    for (const result of started) if (result.status === 'rejected') throw result.reason;

    const admin: JsonRpcSigner = await env.provider.getSigner(0);
    usdt = await deployTestToken(admin, TEST_TOKENS.USDT);
    hot = await env.wallet(10n);
    await mintTestToken(admin, usdt, hot.address, toBaseUnits(FUNDING, DECIMALS));

    // The workers read their wiring from configuration, as on Lambda.
    Object.assign(process.env, {
      EVM_RPC_URLS: JSON.stringify({ [ETH]: env.anvil.rpcUrl }),
      AWS_ENDPOINT_URL_KMS: env.kmsServer.url,
      TOKEN_CONTRACTS: JSON.stringify({ [CURRENCY]: usdt }),
      HOT_WALLET_KEY_ID: hot.keyId,
      CHAIN_TX_CONFIRMATIONS: '1',
      CHAIN_TX_RETRY_QUEUED_AFTER_SECONDS: '0',
    });
    resetConfig();

    await putFixedRates();
    const t = await tenantWithToken('End to end');
    tenantId = t.tenantId;
    // One test withdraws more than the hot wallet's float (1,000,000 tokens): above the platform's default limits.
    await updateTenantSettings(tenantId, { limits: { max_withdrawal_amount: '10000000', daily_withdrawal_limit: '100000000' } });
    await creditAdjustment({ tenant_id: tenantId, currency: CURRENCY, amount: FUNDING, reason: 'test funding' }, ledgerRuntime());
    const { handler } = await import('../../../functions/withdrawals/handler.js');
    call = caller(handler, () => t.bearer);
    const batcherModule = await import('../../../functions/withdrawal-batcher/handler.js');
    batcher = batcherModule.handler;
    transfers = (await import('../../../functions/chain-tx/handler.js')).handler;
    chainResults = (await import('../../../functions/chain-results/handler.js')).handler;
  });

  beforeEach(() => {
    // The workers log every step (and followOnce logs the simulated crashes): keep the output readable.
    quiet = [jest.spyOn(console, 'log').mockImplementation(() => undefined), jest.spyOn(console, 'error').mockImplementation(() => undefined)];
  });

  afterEach(() => {
    for (const spy of quiet) spy.mockRestore();
  });

  afterAll(async () => {
    await env?.stop();
  });

  test(`crash safety: ${RUNS} seeded runs of ${PER_RUN} withdrawals, the sender killed at random points, redelivered; each executed exactly once`, async () => {
    const points: (CrashPoint | null)[] = ['after_nonce', 'after_sign', 'after_persist', 'after_broadcast', null];
    const bumpPoints: (CrashPoint | null)[] = ['after_bump_sign', 'after_bump_persist', null];
    const rnd = prng(20261122);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
    const crashes = new Map<CrashPoint, number>();
    const minedAttempt = { first: 0, later: 0 };
    /** The hash of the bytes first persisted for each request, seen by the dying processors. */
    const persisted = new Map<string, string>();
    const seen = { doubleFirst: 0, doubleRedelivery: 0, followerOnly: 0, doubleResult: 0 };
    const before = await getBalance(tenantId, 'main', CURRENCY);

    const dying = (point: CrashPoint | null, skewSeconds = 0): ChainTxDeps =>
      engine({
        skewSeconds,
        crash: (at, tx) => {
          if (at === 'after_persist' && !persisted.has(tx.requestId)) persisted.set(tx.requestId, tx.attempts[0]?.hash ?? '');
          if (at === point) {
            crashes.set(at, (crashes.get(at) ?? 0) + 1);
            throw new SimulatedCrash(at);
          }
        },
      });
    const survive = async (work: Promise<unknown>): Promise<void> => {
      try {
        await work;
      } catch (error) {
        if (!(error instanceof SimulatedCrash)) throw error;
      }
    };

    for (let run = 0; run < RUNS; run++) {
      // Amounts with 6 decimals between 10 and 60 USDT.
      const amounts = range(PER_RUN).map(() => (10 + Math.floor(rnd() * 50_000_000) / 1_000_000).toFixed(6));
      const created: Created[] = [];
      for (const amount of amounts) created.push(await create(amount));

      const report = await batcher();
      expect(report).toMatchObject({ processing: PER_RUN, skipped: 0 });
      for (const w of created) expect((await call('GET', `/withdrawal/${w.id}/`)).body.status).toBe('processing');
      const ids = created.map((w) => requestIdOf(ETH, w.id));

      // One run in four: no automine, so transactions wait in the pool and the follower bumps their fees (its
      // crash point cycles, so the original and a bumped attempt each get mined in some run).
      const stuck = run % 4 === 1;
      const bumpPoint = bumpPoints[Math.floor(run / 4) % bumpPoints.length] ?? null;
      if (stuck) await env.provider.send('evm_setAutomine', [false]);
      try {
        // The transfers queue delivers each request: once, or twice at the same time; every consumer may die.
        await Promise.all(
          ids.map(async (id) => {
            const point = pick(points);
            const copies = rnd() < 0.3 ? 2 : 1;
            if (copies === 2) seen.doubleFirst++;
            await Promise.all(range(copies).map(() => survive(processChainTx(id, dying(point)))));
          }),
        );
        // Redelivery: none (the follower finds the request), one, or two at once, through the real consumer
        // with the message the event router sends for chain_tx.requested.
        for (const id of ids) {
          const deliveries = Math.floor(rnd() * 3);
          if (deliveries === 2) seen.doubleRedelivery++;
          if (deliveries === 0) {
            seen.followerOnly++;
            continue;
          }
          const record = await routed(`chain_tx:${id}:chain_tx.requested`, 'transfers', `req-${id}`);
          const answers = await Promise.all(range(deliveries).map(() => transfers({ Records: [record] } as SQSEvent)));
          for (const answer of answers) expect(answer.batchItemFailures).toEqual([]);
        }
        if (stuck) {
          // A follower a bump-interval later re-signs every unmined transaction (same nonce, higher fees), dying
          // after signing or after persisting the new bytes; then a block is mined with whatever the pool holds.
          await followOnce(ETH, engine()); // whatever is not yet sent is sent now: all of them wait in the pool
          await followOnce(ETH, dying(bumpPoint, 61));
          await env.provider.send('evm_mine', []);
        }
      } finally {
        if (stuck) await env.provider.send('evm_setAutomine', [true]);
      }

      const done = await followUntilFinal(ids);
      for (const [k, w] of created.entries()) {
        const tx = done[k] as ChainTx;
        // The chain-results worker hears of the result once or twice, possibly concurrently.
        const times = rnd() < 0.5 ? 2 : 1;
        const concurrent = rnd() < 0.5;
        if (times === 2 && concurrent) seen.doubleResult++;
        await deliverResult(tx.requestId, times, concurrent);
        await expectExecutedOnce(w, tx);
        // Persisted bytes are never replaced by a retry: the first attempt is the one first persisted, and
        // without a fee bump it is the one mined.
        const first = persisted.get(tx.requestId);
        if (first !== undefined) expect(tx.attempts[0]?.hash).toBe(first);
        if (!stuck) expect(tx.attempts).toHaveLength(1);
        if (tx.mined?.hash === tx.attempts[0]?.hash) minedAttempt.first++;
        else minedAttempt.later++;
        sent.push({ created: w, tx });
      }
    }

    // Every crash point was exercised, and both the first and a bumped attempt were mined in some run.
    expect([...crashes.keys()].sort()).toEqual(['after_broadcast', 'after_bump_persist', 'after_bump_sign', 'after_nonce', 'after_persist', 'after_sign']);
    expect(minedAttempt.first).toBeGreaterThan(0);
    expect(minedAttempt.later).toBeGreaterThan(0);
    // Each delivery pattern happened in some run.
    expect(Object.entries(seen).filter(([, count]) => count === 0)).toEqual([]);

    // The ledger: debited once by amount + fees per withdrawal, nothing left locked.
    const spent = sent.reduce((total, s) => add(total, s.created.totalDeducted), '0');
    expect(await getBalance(tenantId, 'main', CURRENCY)).toEqual({ amount: sub(before.amount, spent), pending: '0', locked: '0' });
    // The hot wallet: one nonce per withdrawal, no gap, no duplicate; the tokens left equal to what was not sent.
    const nonces = await Promise.all(sent.map(async (s) => (await env.provider.getTransaction(s.tx.mined?.hash ?? ''))?.nonce));
    expect(nonces.sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(range(sent.length));
    expect(await env.provider.getTransactionCount(hot.address, 'latest')).toBe(sent.length);
    expect(await nextNonce(ETH, hot.address)).toBe(sent.length);
    const paid = sent.reduce((total, s) => total + toBaseUnits(s.created.amount, DECIMALS), 0n);
    expect(await tokenBalance(hot.address)).toBe(toBaseUnits(FUNDING, DECIMALS) - paid);
  });

  test('a hot wallet without gas: the withdrawal stays processing while the request waits (insufficient_gas); funded, it completes once', async () => {
    const nonceBefore = await env.provider.getTransactionCount(hot.address, 'latest');
    const gas = await env.provider.getBalance(hot.address);
    await env.provider.send('anvil_setBalance', [hot.address, '0x0']);
    const w = await create('25');
    expect(await batcher()).toMatchObject({ processing: 1 });
    const requestId = requestIdOf(ETH, w.id);
    const record = await routed(`chain_tx:${requestId}:chain_tx.requested`, 'transfers', 'gas-1');
    // Waiting for gas is not a failed message: the follower retries it.
    expect((await transfers({ Records: [record, record] } as SQSEvent)).batchItemFailures).toEqual([]);
    await followOnce(ETH, engine());
    expect(await dynamoChainTxStore.get(requestId)).toMatchObject({ status: 'queued', reason: 'insufficient_gas', attempts: [] });
    expect(await walletHealth(ETH, hot.address, engine())).toMatchObject({
      balance: '0',
      insufficientGas: 1,
      requestIds: [requestId],
      metric: 'ChainTxInsufficientGas',
    });
    // The withdrawal is still processing, its funds held. (The reason lives on the chain-tx request and the
    // wallet-health metric; the withdrawal record of GET /withdrawal/{id}/ has no field that carries it.)
    const waiting = (await call('GET', `/withdrawal/${w.id}/`)).body;
    expect(waiting).toMatchObject({ status: 'processing', transaction_hash: null });
    expect((await getBalance(tenantId, 'main', CURRENCY)).locked).toBe(normalize(w.totalDeducted));
    expect(await env.provider.getTransactionCount(hot.address, 'latest')).toBe(nonceBefore);

    // The operator funds the wallet: the follower sends it; the result completes the withdrawal once.
    await env.provider.send('anvil_setBalance', [hot.address, toBeHex(gas)]);
    const [tx] = await followUntilFinal([requestId]);
    await deliverResult(requestId, 2, true);
    await expectExecutedOnce(w, tx as ChainTx);
    expect(tx?.nonce).toBe(nonceBefore);
    expect(tx?.reason).toBeUndefined();
    expect(await env.provider.getTransactionCount(hot.address, 'latest')).toBe(nonceBefore + 1);
    expect((await getBalance(tenantId, 'main', CURRENCY)).locked).toBe('0');
  });
  test('the batcher killed between the status change and the chain-tx request: asked again a minute later, sent once', async () => {
    const nonceBefore = await env.provider.getTransactionCount(hot.address, 'latest');
    const w = await create('12.5');
    const deps = (now: () => Date, lost = false): BatcherDeps =>
      batcherDeps({
        wallet: async () => hot,
        chainTx: {
          store: lost
            ? {
                ...dynamoChainTxStore,
                create: async () => {
                  throw new SimulatedCrash('after_nonce');
                },
              }
            : dynamoChainTxStore,
          clock: () => new Date(),
        },
        tokenContract: (code) => (code === CURRENCY ? usdt : null),
        stage: 'local',
        now,
      });
    expect(await runWithdrawalBatch(deps(() => new Date(), true))).toMatchObject({ skipped: 1 });
    expect((await call('GET', `/withdrawal/${w.id}/`)).body.status).toBe('processing');
    const requestId = requestIdOf(ETH, w.id);
    expect(await dynamoChainTxStore.get(requestId)).toBeUndefined();
    // Two batchers a minute later, at the same time: one request.
    const later = () => new Date(Date.now() + 120_000);
    await Promise.all([runWithdrawalBatch(deps(later)), runWithdrawalBatch(deps(later))]);
    expect(await dynamoChainTxStore.get(requestId)).toMatchObject({ status: 'queued', reference: w.id });
    const [tx] = await followUntilFinal([requestId]);
    await deliverResult(requestId, 1, false);
    await expectExecutedOnce(w, tx as ChainTx);
    expect(await env.provider.getTransactionCount(hot.address, 'latest')).toBe(nonceBefore + 1);
  });

  test('a hot wallet short of tokens: the request waits (estimate_failed), nothing sent; topped up, it completes once', async () => {
    const nonceBefore = await env.provider.getTransactionCount(hot.address, 'latest');
    const held = await tokenBalance(hot.address);
    // More than the hot wallet holds (the tenant's ledger balance allows it).
    await creditAdjustment({ tenant_id: tenantId, currency: CURRENCY, amount: FUNDING, reason: 'test funding' }, ledgerRuntime());
    const amount = (Number(held / 10n ** BigInt(DECIMALS)) + 1).toString();
    const w = await create(amount);
    expect(await batcher()).toMatchObject({ processing: 1 });
    const requestId = requestIdOf(ETH, w.id);
    const record = await routed(`chain_tx:${requestId}:chain_tx.requested`, 'transfers', 'tokens-1');
    expect((await transfers({ Records: [record] } as SQSEvent)).batchItemFailures).toEqual([]);
    await followOnce(ETH, engine());
    expect(await dynamoChainTxStore.get(requestId)).toMatchObject({ status: 'queued', reason: 'estimate_failed', attempts: [] });
    expect((await call('GET', `/withdrawal/${w.id}/`)).body.status).toBe('processing');
    expect(await env.provider.getTransactionCount(hot.address, 'latest')).toBe(nonceBefore);

    const admin = await env.provider.getSigner(0);
    await mintTestToken(admin, usdt, hot.address, toBaseUnits(amount, DECIMALS));
    const [tx] = await followUntilFinal([requestId]);
    await deliverResult(requestId, 2, false);
    await expectExecutedOnce(w, tx as ChainTx);
    expect(tx?.nonce).toBe(nonceBefore);
    expect(await env.provider.getTransactionCount(hot.address, 'latest')).toBe(nonceBefore + 1);
    expect((await getBalance(tenantId, 'main', CURRENCY)).locked).toBe('0');
  });
});
