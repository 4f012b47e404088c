/**
 * Throughput of the chain-transaction engine on withdrawals: ERC-20 `transfer` requests as the withdrawal
 * batcher makes them (purpose `withdrawal`, a 6-decimal test USDT held by the hot wallet), signed (through KMS,
 * with `kmsLatencyMs` added to every KMS call by a wrapping middleware) and broadcast per second, with several
 * concurrent processors sharing one wallet's nonce manager; then followed to confirmation to count nonce gaps
 * and duplicates (a duplicate also shows as more tokens received than requested).
 * Starts its own DynamoDB Local (in memory), anvil and KMS server, and stops them.
 *
 *   npx tsx bench/chain-tx.ts [count] [kmsLatencyMs] [batch]
 *
 * With `batch`: withdrawals completed per second through batch payouts (`benchBatchPayouts`), and the gas of a
 * payout in a full batch against a plain ERC-20 transfer.
 */
import { pathToFileURL } from 'node:url';
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { randomUUID } from 'node:crypto';
import { Contract, Wallet, dataSlice, getAddress, id, toBeHex } from 'ethers';
import type { JsonRpcProvider } from 'ethers';
import { startAnvil } from '../infra/local/anvil.js';
import { startTableOnly } from '../infra/local/table-only.js';
import { startKmsServer } from '../infra/local/kms/server.js';
import { EvmChain, KmsTxSigner, evmProvider } from '../shared/chain/engine/evm.js';
import { ERC20_ABI } from '../shared/chain/evm/abi.js';
import { deployBatchPayout, deployTestToken, mintTestToken, TEST_TOKENS } from '../infra/local/dev/deploy.js';
import type { ChainTx } from '../shared/domain/chain-tx.js';
import { isFinal, requestIdOf } from '../shared/domain/chain-tx.js';
import { config, resetConfig } from '../shared/config/config.js';
import { creditEntry, MAIN } from '../shared/domain/ledger.js';
import { openWithdrawal } from '../shared/domain/withdrawals.js';
import { withdrawalsRuntime } from '../shared/runtime/withdrawals.js';
import { dynamoLedger } from '../shared/store/ledger.js';
import { dynamoWithdrawals } from '../shared/store/withdrawals.js';
import { approvalReady, approvalReference, onWithdrawalBatchResult } from '../shared/usecases/withdrawals/batch.js';
import type { BatcherDeps } from '../shared/usecases/withdrawals/ports.js';
import { runWithdrawalBatch } from '../shared/usecases/withdrawals/process.js';
import { dynamoChainTxStore } from '../shared/store/chain-tx.js';
import type { ChainTxDeps } from '../shared/usecases/chain-tx/ports.js';
import { followOnce } from '../shared/usecases/chain-tx/follow-chain-txs.js';
import { processChainTx } from '../shared/usecases/chain-tx/process-chain-tx.js';
import { requestChainTx } from '../shared/usecases/chain-tx/request-chain-tx.js';
import { erc20TransferData } from '../shared/chain/evm/erc20.js';
import { payoutCalls } from '../shared/chain/evm/batch-payout.js';

export interface BenchChainTxOptions {
  readonly count: number;
  readonly kmsLatencyMs: number;
  /** Concurrent processors × messages each works at once. Default 3 × 5. */
  readonly processors?: number;
  readonly perProcessor?: number;
}

export interface BenchChainTxResult {
  /** Requests signed and broadcast per second. */
  readonly perSecond: number;
  /** Nonces in 0..count-1 that no mined transaction of the run used. */
  readonly nonceGaps: number;
  /** Nonces used by more than one request, plus requests mined more than once. */
  readonly duplicates: number;
}

const NETWORK = 'bench';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function slowKms(url: string, latencyMs: number): KMSClient {
  const client = new KMSClient({ endpoint: url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  client.middlewareStack.add(
    (next) => async (args) => {
      if (latencyMs > 0) await sleep(latencyMs);
      return next(args);
    },
    { step: 'initialize', name: 'benchLatency' },
  );
  return client;
}

/** The bench's local stack: the table alone (DynamoDB Local, this process pointed at it), anvil, the KMS endpoint. */
interface BenchStack {
  readonly anvil: Awaited<ReturnType<typeof startAnvil>>;
  /** KMS with `kmsLatencyMs` added to every call. */
  readonly kms: KMSClient;
  /** Run at `stop`, first (providers to destroy). */
  readonly cleanups: (() => void)[];
  /** Undoes it all: cleanups, clients, this process's environment and configuration, the servers. */
  stop(): Promise<void>;
}

async function startBenchStack(tableName: string, kmsLatencyMs: number): Promise<BenchStack> {
  const saved = { ...process.env };
  const table = await startTableOnly(tableName);
  const anvil = await startAnvil();
  const kmsServer = await startKmsServer({ host: '127.0.0.1', port: 0 });
  const kms = slowKms(kmsServer.url, kmsLatencyMs);
  const cleanups: (() => void)[] = [];
  return {
    anvil,
    kms,
    cleanups,
    async stop() {
      for (const cleanup of cleanups) cleanup();
      kms.destroy();
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
      resetConfig();
      await kmsServer.close();
      await anvil.close();
      await table.stop();
    },
  };
}

/**
 * Nonce use of the hot wallet's mined transactions `txs`, against `sent` (its transaction count): the nonces in
 * 0..sent-1 no mined transaction used, and the nonces used more than once (as extra uses).
 */
async function nonceUse(provider: JsonRpcProvider, txs: readonly ChainTx[], sent: number): Promise<{ nonceGaps: number; duplicates: number }> {
  const used = new Map<number, number>();
  for (const t of txs) {
    if (!t.mined) continue;
    const tx = await provider.getTransaction(t.mined.hash);
    if (tx) used.set(tx.nonce, (used.get(tx.nonce) ?? 0) + 1);
  }
  let nonceGaps = 0;
  for (let n = 0; n < sent; n++) if (!used.has(n)) nonceGaps++;
  return { nonceGaps, duplicates: [...used.values()].reduce((sum, k) => sum + (k > 1 ? k - 1 : 0), 0) };
}

/** A new secp256k1 signing key on the KMS endpoint, and its EVM address: the bench's hot wallet. */
async function newHotWallet(kms: KMSClient): Promise<{ keyId: string; address: string }> {
  const key = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
  const keyId = key.KeyMetadata?.KeyId;
  if (!keyId) throw new Error('KMS returned no key id');
  return { keyId, address: await new KmsTxSigner(kms).signerFor(keyId).getAddress() };
}

/** One engine processor's ports: its own provider on `rpcUrl`, KMS signing, one confirmation, no fee bumps. */
function engineDepsOn(rpcUrl: string, kms: KMSClient, cleanups: (() => void)[]): ChainTxDeps {
  const provider = evmProvider(rpcUrl);
  cleanups.push(() => provider.destroy());
  const chain = new EvmChain(provider);
  return {
    store: dynamoChainTxStore,
    chain: () => chain,
    signer: new KmsTxSigner(kms),
    clock: () => new Date(),
    settings: {
      confirmations: 1,
      bumpAfterSeconds: 3600,
      caps: { maxFeePerGas: 500n * 10n ** 9n, maxPriorityFeePerGas: 50n * 10n ** 9n },
      retryQueuedAfterSeconds: 0,
    },
  };
}

export async function benchChainTx({ count, kmsLatencyMs, processors = 3, perProcessor = 5 }: BenchChainTxOptions): Promise<BenchChainTxResult> {
  const stack = await startBenchStack('bench-chain-tx', kmsLatencyMs);
  const { anvil, kms, cleanups } = stack;
  try {
    const { keyId, address } = await newHotWallet(kms);
    const admin = evmProvider(anvil.rpcUrl);
    cleanups.push(() => admin.destroy());
    await admin.send('anvil_setBalance', [address, toBeHex(1000n * 10n ** 18n)]);
    const deployer = await admin.getSigner(0);
    const usdt = await deployTestToken(deployer, TEST_TOKENS.USDT);
    await mintTestToken(deployer, usdt, address, BigInt(count));

    const depsOf = (): ChainTxDeps => engineDepsOn(anvil.rpcUrl, kms, cleanups);
    const deps = Array.from({ length: processors }, depsOf);
    const first = deps[0];
    if (!first) throw new Error('at least one processor');
    const to = Wallet.createRandom().address;
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const request = {
        network: NETWORK,
        wallet: { keyId, address },
        to: usdt,
        data: erc20TransferData(to, 1n),
        purpose: 'withdrawal',
        reference: `bench-${i}`,
      };
      ids.push((await requestChainTx(request, first)).requestId);
    }

    const queue = [...ids];
    const started = process.hrtime.bigint();
    await Promise.all(
      deps.flatMap((d) =>
        Array.from({ length: perProcessor }, async () => {
          for (let id = queue.shift(); id !== undefined; id = queue.shift()) await processChainTx(id, d);
        }),
      ),
    );
    const elapsedNs = process.hrtime.bigint() - started;
    const perSecond = (count * 1e9) / Number(elapsedNs);

    for (let round = 0; round < 100 && (await dynamoChainTxStore.listOpen(NETWORK, 1)).length > 0; round++) await followOnce(NETWORK, first);
    const final: ChainTx[] = [];
    for (let i = 0; i < ids.length; i += 50) {
      const chunk = await Promise.all(ids.slice(i, i + 50).map((id) => dynamoChainTxStore.get(id)));
      final.push(...chunk.filter((t): t is ChainTx => t !== undefined));
    }
    const nonces = await nonceUse(admin, final, count);
    const { nonceGaps } = nonces;
    let { duplicates } = nonces;
    // Every request moves 1 unit: more units than requests means something executed twice.
    const received = (await new Contract(usdt, ERC20_ABI, admin).getFunction('balanceOf')(to)) as bigint;
    if (received > BigInt(count)) duplicates += Number(received - BigInt(count));
    return { perSecond, nonceGaps, duplicates };
  } finally {
    await stack.stop();
  }
}

export interface BenchBatchPayoutOptions {
  /** Withdrawals paid in the timed run. */
  readonly count: number;
  readonly kmsLatencyMs: number;
  /** Withdrawals per batch (default 50). */
  readonly batchSize?: number;
  /** Concurrent processors signing and broadcasting batches (default 3). */
  readonly processors?: number;
}

export interface BenchBatchPayoutResult {
  /** Withdrawals taken from pending to completed per second: batcher, engine (KMS, anvil), follower, settlement. */
  readonly perSecond: number;
  /** Withdrawals signed and broadcast per second by the engine (as `benchChainTx` counts single transfers). */
  readonly signedPerSecond: number;
  /** Seconds of each phase: batcher (saves and batch requests), engine (sign, persist, broadcast), follow + settle. */
  readonly phases: { readonly dispatch: number; readonly engine: number; readonly settle: number };
  readonly batches: number;
  /** KMS Sign calls in the timed run (one per batch). */
  readonly kmsSigns: number;
  /** Nonces of the hot wallet that no mined transaction used, and withdrawals paid more than once. */
  readonly nonceGaps: number;
  readonly duplicates: number;
  /** Exact gas of a plain ERC-20 `transfer` to a new holder, on the same anvil. */
  readonly transferGas: bigint;
  /** Exact gas of one full batch of `batchSize` payouts to new holders, and its share per payout. */
  readonly batchGas: bigint;
  readonly gasPerPayout: bigint;
}

/**
 * Withdrawals completed per second through the batch path: `count` pending USDTERC20 withdrawals (written with their
 * holds, untimed) are dispatched by the withdrawal batcher in batches of `batchSize` (one BatchPayout request each),
 * signed through KMS (`kmsLatencyMs` added to every call) and broadcast by `processors` concurrent processors,
 * followed to confirmation on anvil (automine), and settled item by item from the receipts, until every one is
 * completed. Each withdrawal is two table transactions of its own (dispatched, completed): on DynamoDB Local those
 * bound the end-to-end figure, so the engine's share (signed and broadcast per second) is given apart. Then nonce gaps and double payments are counted, and the gas of a full batch is set against a plain
 * ERC-20 transfer measured on the same chain (both to addresses that never held the token).
 */
export async function benchBatchPayouts({ count, kmsLatencyMs, batchSize = 50, processors = 3 }: BenchBatchPayoutOptions): Promise<BenchBatchPayoutResult> {
  const stack = await startBenchStack('bench-batch-payouts', kmsLatencyMs);
  const { anvil, kms, cleanups } = stack;
  let kmsSigns = 0;
  kms.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'SignCommand') kmsSigns++;
      return next(args);
    },
    { step: 'initialize', name: 'benchSignCounter' },
  );
  try {
    const hot = await newHotWallet(kms);
    const admin = evmProvider(anvil.rpcUrl);
    cleanups.push(() => admin.destroy());
    await admin.send('anvil_setBalance', [hot.address, toBeHex(1000n * 10n ** 18n)]);
    const deployer = await admin.getSigner(0);
    const usdt = await deployTestToken(deployer, TEST_TOKENS.USDT);
    await mintTestToken(deployer, usdt, hot.address, 10n ** 15n);
    await mintTestToken(deployer, usdt, deployer.address, 10n ** 12n);
    const contract = (await deployBatchPayout(deployer, { hotWallet: hot.address })).address;
    /** Addresses that never held anything, the same every run (gas depends on the call data's zero bytes). */
    const named = (label: string): string => getAddress(dataSlice(id(label), 12));

    // A plain transfer to a new holder, as a single withdrawal pays it.
    const plain = await deployer.sendTransaction({ to: usdt, data: erc20TransferData(named('bench-single'), 1_000_000n) });
    const transferGas = (await plain.wait())?.gasUsed ?? 0n;

    const chain = new EvmChain(evmProvider(anvil.rpcUrl));
    cleanups.push(() => chain.provider.destroy());
    const engineDeps = (): ChainTxDeps => engineDepsOn(anvil.rpcUrl, kms, cleanups);
    const engines = Array.from({ length: processors }, engineDeps);
    const first = engines[0] as ChainTxDeps;
    const runtime = withdrawalsRuntime(config());
    const batcher: BatcherDeps = {
      ...runtime,
      served: { ...runtime.served, withdrawals: new Set(['ETH']) },
      wallet: async () => hot,
      chainTx: { store: dynamoChainTxStore, clock: () => new Date() },
      tokenContract: (code) => (code === 'USDTERC20' ? usdt : null),
      log: { error: (message, fields) => console.error(message, fields) },
      batchPayout: { contract, maxItems: batchSize },
      calls: payoutCalls,
    };
    const followAll = async (requestIds: readonly string[]): Promise<ChainTx[]> => {
      for (let round = 0; round < 200; round++) {
        const txs = await Promise.all(requestIds.map((r) => dynamoChainTxStore.get(r)));
        if (txs.every((t) => t !== undefined && isFinal(t))) return txs as ChainTx[];
        await followOnce('ETH', first);
      }
      throw new Error('chain transactions did not become final');
    };

    // The hot wallet's approval of the contract (once per token; untimed).
    await approvalReady('ETH', usdt, hot, batcher);
    const approvalId = requestIdOf('ETH', approvalReference(contract, usdt));
    await processChainTx(approvalId, first);
    await followAll([approvalId]);
    if (!(await approvalReady('ETH', usdt, hot, batcher))) throw new Error('the approval did not confirm');

    // `count` pending withdrawals of 1 USDT each (fees 0), their holds on a funded tenant (untimed).
    const tenantId = randomUUID();
    const now = new Date();
    await dynamoLedger.post({
      tenantId,
      entryId: 'bench-funding',
      entry: creditEntry({ account: MAIN, type: 'adjustment', currency: 'USDTERC20', amount: String(count), reason: 'bench funding' }),
      now,
    });
    const recipients = Array.from({ length: count }, (_, i) => named(`bench-batch:${i}`));
    for (let i = 0; i < count; i += 25) {
      await Promise.all(
        recipients.slice(i, i + 25).map((address, j) =>
          dynamoWithdrawals.create(
            {
              change: openWithdrawal(
                {
                  id: randomUUID(),
                  tenantId,
                  currency: 'USDTERC20',
                  network: 'ETH',
                  token: 'USDT',
                  amount: '1',
                  networkFee: '0',
                  platformFee: '0',
                  totalFee: '0',
                  totalDeducted: '1',
                  address,
                  customId: `bench-${i + j}`,
                  callbackUrl: null,
                  accountId: null,
                  priceAmount: null,
                  priceCurrency: null,
                },
                new Date(now.getTime() + i + j),
              ),
              dayTotal: null,
            },
            now,
          ),
        ),
      );
    }

    const signsBefore = kmsSigns;
    const started = process.hrtime.bigint();
    let batchIds: string[] = [];
    let dispatchNs = 0n;
    let engineNs = 0n;
    for (let pass = 0; pass < 100; pass++) {
      const before = new Set(batchIds);
      const passStarted = process.hrtime.bigint();
      await runWithdrawalBatch(batcher, count);
      const engineStarted = process.hrtime.bigint();
      dispatchNs += engineStarted - passStarted;
      const open = await dynamoChainTxStore.listOpen('ETH');
      const fresh = open.filter((t) => t.purpose === 'withdrawal_batch' && !before.has(t.requestId)).map((t) => t.requestId);
      if (fresh.length === 0) break;
      batchIds = [...batchIds, ...fresh];
      const queue = [...fresh];
      await Promise.all(
        engines.map(async (d) => {
          for (let r = queue.shift(); r !== undefined; r = queue.shift()) await processChainTx(r, d);
        }),
      );
      engineNs += process.hrtime.bigint() - engineStarted;
    }
    const settleStarted = process.hrtime.bigint();
    const mined = await followAll(batchIds);
    const settlement = {
      withdrawals: dynamoWithdrawals,
      chainTx: { store: dynamoChainTxStore, clock: () => new Date() },
      calls: payoutCalls,
      receipt: (_network: string, hash: string) => chain.receipt(hash),
    };
    // One batch's result at a time, as one chain-results message is handled (its items 8 at a time).
    for (const t of mined) {
      await onWithdrawalBatchResult(
        t.requestId,
        t.status === 'confirmed' && t.mined ? { ok: true, txHash: t.mined.hash } : { ok: false, reason: t.status },
        new Date(),
        settlement,
      );
    }
    const settleNs = process.hrtime.bigint() - settleStarted;
    const elapsedNs = process.hrtime.bigint() - started;
    const signs = kmsSigns - signsBefore;

    const all = await dynamoWithdrawals.list(tenantId, { by: 'created', ascending: true });
    const completed = all.filter((w) => w.status === 'completed').length;
    if (completed !== count) throw new Error(`${completed} of ${count} withdrawals completed`);
    const perSecond = (count * 1e9) / Number(elapsedNs);

    // Nonces: the approval and every batch, 0..n-1, each once.
    const approval = await dynamoChainTxStore.get(approvalId);
    const nonces = await nonceUse(admin, approval ? [...mined, approval] : mined, await admin.getTransactionCount(hot.address, 'latest'));
    const { nonceGaps } = nonces;
    let { duplicates } = nonces;
    const token = new Contract(usdt, ERC20_ABI, admin);
    for (const address of recipients) {
      const received = (await token.getFunction('balanceOf')(address)) as bigint;
      if (received > 1_000_000n) duplicates += Number((received - 1_000_000n) / 1_000_000n);
    }
    const full = mined.find((t) => (t.items?.length ?? 0) === batchSize && t.mined);
    const batchGas = full?.mined?.gasUsed ?? 0n;
    const seconds = (ns: bigint): number => Number(ns) / 1e9;
    return {
      perSecond,
      signedPerSecond: count / seconds(engineNs),
      phases: { dispatch: seconds(dispatchNs), engine: seconds(engineNs), settle: seconds(settleNs) },
      batches: mined.length,
      kmsSigns: signs,
      nonceGaps,
      duplicates,
      transferGas,
      batchGas,
      gasPerPayout: batchGas / BigInt(batchSize),
    };
  } finally {
    await stack.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const count = Number(process.argv[2] ?? 50);
  const kmsLatencyMs = Number(process.argv[3] ?? 20);
  const run = process.argv[4] === 'batch' ? benchBatchPayouts({ count, kmsLatencyMs }) : benchChainTx({ count, kmsLatencyMs });
  run
    .then((result) => console.log(JSON.stringify({ count, kmsLatencyMs, ...result }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
