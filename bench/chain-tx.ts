/**
 * Throughput of the chain-transaction engine on withdrawals: ERC-20 `transfer` requests as the withdrawal
 * batcher makes them (purpose `withdrawal`, a 6-decimal test USDT held by the hot wallet), signed (through KMS,
 * with `kmsLatencyMs` added to every KMS call by a wrapping middleware) and broadcast per second, with several
 * concurrent processors sharing one wallet's nonce manager; then followed to confirmation to count nonce gaps
 * and duplicates (a duplicate also shows as more tokens received than requested).
 * Starts its own DynamoDB Local (in memory), anvil and KMS server, and stops them.
 *
 *   npx tsx bench/chain-tx.ts [count] [kmsLatencyMs]
 */
import { pathToFileURL } from 'node:url';
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { Contract, Wallet, toBeHex } from 'ethers';
import { startAnvil } from '../infra/local/anvil.js';
import { startDynamoDb } from '../infra/local/dynamodb.js';
import { startKmsServer } from '../infra/local/kms/server.js';
import { EvmChain, KmsTxSigner, evmProvider } from '../shared/chain/engine/evm.js';
import { ERC20_ABI } from '../shared/chain/evm/abi.js';
import { deployTestToken, mintTestToken, TEST_TOKENS } from '../infra/local/dev/deploy.js';
import type { ChainTx } from '../shared/chain/engine/state.js';
import { resetConfig } from '../shared/config/config.js';
import { resetDb } from '../shared/store/client.js';
import { dynamoChainTxStore } from '../shared/store/chain-tx.js';
import type { ChainTxDeps } from '../shared/usecases/chain-tx/deps.js';
import { followOnce } from '../shared/usecases/chain-tx/follow-chain-txs.js';
import { processChainTx } from '../shared/usecases/chain-tx/process-chain-tx.js';
import { requestChainTx } from '../shared/usecases/chain-tx/request-chain-tx.js';
import { erc20TransferData } from '../shared/usecases/withdrawals/process.js';

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

export async function benchChainTx({ count, kmsLatencyMs, processors = 3, perProcessor = 5 }: BenchChainTxOptions): Promise<BenchChainTxResult> {
  const dynamo = await startDynamoDb({ dbPath: null });
  const anvil = await startAnvil();
  const kmsServer = await startKmsServer({ host: '127.0.0.1', port: 0 });
  const saved = { ...process.env };
  const kms = slowKms(kmsServer.url, kmsLatencyMs);
  const cleanups: (() => void)[] = [];
  try {
    await dynamo.ensureTable('bench-chain-tx');
    Object.assign(process.env, {
      TABLE_NAME: 'bench-chain-tx',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.url,
      STAGE: 'local',
    });
    resetConfig();
    resetDb();

    const key = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
    const keyId = key.KeyMetadata?.KeyId;
    if (!keyId) throw new Error('KMS returned no key id');
    const address = await new KmsTxSigner(kms).signerFor(keyId).getAddress();
    const admin = evmProvider(anvil.rpcUrl);
    cleanups.push(() => admin.destroy());
    await admin.send('anvil_setBalance', [address, toBeHex(1000n * 10n ** 18n)]);
    const deployer = await admin.getSigner(0);
    const usdt = await deployTestToken(deployer, TEST_TOKENS.USDT);
    await mintTestToken(deployer, usdt, address, BigInt(count));

    const depsOf = (): ChainTxDeps => {
      const provider = evmProvider(anvil.rpcUrl);
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
    };
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
    const used = new Map<number, number>();
    for (const tx of final) {
      if (tx.mined) {
        const mined = await admin.getTransaction(tx.mined.hash);
        if (mined) used.set(mined.nonce, (used.get(mined.nonce) ?? 0) + 1);
      }
    }
    let nonceGaps = 0;
    for (let n = 0; n < count; n++) if (!used.has(n)) nonceGaps++;
    let duplicates = [...used.values()].reduce((sum, k) => sum + (k > 1 ? k - 1 : 0), 0);
    // Every request moves 1 unit: more units than requests means something executed twice.
    const received = (await new Contract(usdt, ERC20_ABI, admin).getFunction('balanceOf')(to)) as bigint;
    if (received > BigInt(count)) duplicates += Number(received - BigInt(count));
    return { perSecond, nonceGaps, duplicates };
  } finally {
    for (const cleanup of cleanups) cleanup();
    kms.destroy();
    resetDb();
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    resetConfig();
    await kmsServer.close();
    await anvil.close();
    await dynamo.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const count = Number(process.argv[2] ?? 50);
  const kmsLatencyMs = Number(process.argv[3] ?? 20);
  benchChainTx({ count, kmsLatencyMs })
    .then((result) => console.log(JSON.stringify({ count, kmsLatencyMs, ...result })))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
