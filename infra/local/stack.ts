/**
 * The embedded local stack (design section 8): DynamoDB Local, an SQS server, a KMS-compatible endpoint, anvil, an
 * S3-compatible server (s3rver: the transaction exports), the API Gateway stand-in and the event-source pollers,
 * composed in one process around the same handler modules CDK deploys. `npm start` (infra/local/main.ts) and the
 * integration tests (test/support/stack.ts) use it.
 *
 * The environment the handlers read (process.env) is set BEFORE any handler module is imported: the HTTP server
 * and the pollers import handler modules lazily, on first use.
 */
import { KMSClient } from '@aws-sdk/client-kms';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { QUEUES, queueUrlEnv, WORKER_FUNCTIONS } from '../definition.js';
import type { WorkerFunction } from '../definition.js';
import { announcingCheckouts } from './dev/checkout-links.js';
import { KmsEd25519Signer } from '../../shared/chain/signer/kms-ed25519-signer.js';
import { KmsSigner } from '../../shared/chain/signer/kms-signer.js';
import { toTronBase58 } from '../../shared/domain/chain-addresses.js';
import { resetConfig } from '../../shared/config/config.js';
import type { NetworkCode } from '../../shared/domain/currencies.js';
import { resetDb } from '../../shared/store/client.js';
import { resetSqs } from '../../shared/queue/sqs.js';
import { DEFAULT_BLOCK_TIME_SECONDS, deployContracts, evmEnv, serveLocalGasStation, startLocalChains, startLocalTron, startMining, tronEnv } from './chains.js';
import type { LocalContracts, LocalEvmChain } from './chains.js';
import { LOCAL_CREDENTIALS, checkJava, startDynamoDb } from './dynamodb.js';
import type { LocalDynamoDb } from './dynamodb.js';
import { startHttpServer } from './http-server.js';
import type { HttpFunction, LocalHttpServer } from './http-server.js';
import { startPollers } from './pollers.js';
import type { Pollers, PollerWorker, ScheduleOptions, StreamOptions } from './pollers.js';
import { LOCAL_EXPORT_BUCKET, startS3 } from './s3.js';
import type { LocalS3 } from './s3.js';
import { startSqs } from './sqs.js';
import type { LocalSqs } from './sqs.js';
import type { TronNode } from './tron.js';
import { LAMPORTS_PER_SOL, solanaEnv, startLocalSolana } from './solana.js';
import type { SolanaNode } from './solana.js';
import { bitcoinEnv, startLocalBitcoin } from './bitcoin.js';
import type { BitcoinNode } from './bitcoin.js';
import { writeJson } from './json-file.js';
import { acquireStackLock } from './lock.js';
import type { StackLock } from './lock.js';
import { ensureKeys, startKms } from './keys.js';
import type { LocalKeys } from './keys.js';
import { REPO_ROOT } from './lambda/runtime.js';
import { createLogger } from './log.js';
import type { Logger, LogLevel } from './log.js';

export { DEFAULT_BLOCK_TIME_SECONDS, LOCAL_EVM_NETWORKS, LOCAL_TRON, localChainId } from './chains.js';
export { LocalStackSetupError } from './dynamodb.js';
export { REPO_ROOT } from './lambda/runtime.js';
export { createLogger } from './log.js';
export type { Logger, LogLevel } from './log.js';

export const DEFAULT_DATA_DIR = join(REPO_ROOT, '.local');
export const TABLE_NAME = 'gateway';
export const LOCAL_REGION = 'us-east-1';

export interface StackParts {
  /** The local EVM chains, one anvil per EVM network of the catalogue (and contract deployment). Default true. */
  readonly anvil?: boolean;
  /** Queue, stream and schedule pollers feeding the workers. Default true. */
  readonly pollers?: boolean;
  /** The HTTP API. Default true. */
  readonly http?: boolean;
  /** Deploy the contracts on anvil (when the deploy module and the build artifacts exist). Default true. */
  readonly contracts?: boolean;
  /** The local TRON node (TronGrid-compatible API; in memory, a block every 3 s). Default true. */
  readonly tron?: boolean;
  /** The local Solana node (litesvm behind JSON-RPC; in memory, a block every 400 ms, a USDT mint). Default true. */
  readonly solana?: boolean;
  /** The local Bitcoin node (regtest in memory behind the Esplora API; a block every 2 s). Default true. */
  readonly btc?: boolean;
}

export interface StackPorts {
  /** Default: `PORT` env, else 3000. 0 = free port. */
  readonly http?: number;
  readonly dynamodb?: number;
  readonly sqs?: number;
  readonly kms?: number;
  /** The first EVM chain's port; the others take the next ones, in catalogue order. 0: free ports. */
  readonly anvil?: number;
  readonly tron?: number;
  readonly solana?: number;
  readonly btc?: number;
  /** The S3-compatible server (transaction exports). */
  readonly s3?: number;
}

export interface StackOptions {
  /** Where state persists (default `<repo>/.local/`); null: in memory, with a temporary dir removed on stop. */
  readonly dataDir?: string | null;
  /** Wipe dataDir first. */
  readonly fresh?: boolean;
  readonly ports?: StackPorts;
  readonly parts?: StackParts;
  readonly logLevel?: LogLevel;
  /** One log line per HTTP request (at info level). */
  readonly logRequests?: boolean;
  /** Replaces API_FUNCTIONS (tests). */
  readonly httpFunctions?: readonly HttpFunction[];
  /** Replaces WORKER_FUNCTIONS (tests). */
  readonly workers?: readonly PollerWorker[];
  readonly stream?: StreamOptions;
  readonly schedule?: ScheduleOptions;
  /** Overrides every queue's visibility timeout (tests). */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Interval mining of the EVM chains: a block every N seconds (default DEFAULT_BLOCK_TIME_SECONDS), as real
   * chains produce them, so a payment confirms without anyone mining. null: automine, a block per transaction
   * and none otherwise (tests that mine by hand).
   */
  readonly blockTimeSeconds?: number | null;
}

export interface StackJson {
  apiUrl: string | null;
  /** RPC URL per network: every EVM chain, TRX (the local TRON node's API), SOL (the local Solana node's JSON-RPC), BTC (the local Bitcoin node's Esplora API). */
  rpcUrls: Record<string, string>;
  /** Empty when the contracts are not deployed; `networks.SOL.tokens.USDT` is the local Solana node's USDT mint. */
  contracts: Partial<Omit<LocalContracts, 'networks'>> & {
    networks?: Partial<Record<NetworkCode, { readonly chainId?: number; readonly tokens: Record<string, string> }>>;
  };
  queueUrls: Record<string, string>;
  dlqUrls: Record<string, string>;
  dynamodbUrl: string;
  sqsUrl: string;
  kmsUrl: string | null;
  /** The S3-compatible server (`AWS_ENDPOINT_URL_S3`) and the exports bucket on it (`EXPORT_BUCKET`). */
  s3Url: string;
  exportBucket: string;
  tableName: string;
  keys: { signingKeyId: string | null; secretsKeyId: string | null };
  /** The environment the handlers run with (to reproduce it in a script or a debugger). */
  env: Record<string, string>;
  /** The stack's process and its child processes (each dies with it). */
  processes: { stack: number; dynamodb: number | null; anvil: Record<string, number> };
  startedAt: string;
}

export interface StackHandle {
  readonly apiUrl: string | null;
  readonly env: Readonly<Record<string, string>>;
  readonly stackJson: StackJson;
  /** Where stack.json (and the persisted state) is. */
  readonly dataDir: string;
  readonly dynamodb: LocalDynamoDb;
  readonly sqs: LocalSqs;
  readonly s3: LocalS3;
  readonly pollers: Pollers | undefined;
  readonly http: LocalHttpServer | undefined;
  /** The local TRON node (its chain's balances and helpers) when the part runs. */
  readonly tron: TronNode | undefined;
  /** The local Solana node (its chain, mint, faucet and helpers) when the part runs. */
  readonly solana: SolanaNode | undefined;
  /** The local Bitcoin node (its chain, faucet and helpers) when the part runs. */
  readonly btc: BitcoinNode | undefined;
  stop(): Promise<void>;
}

/** The Solana fee payer's address (its KMS key's public key) funded with 1,000 SOL on the local node. */
async function fundSolanaFeePayer(node: SolanaNode, kmsUrl: string, keyId: string, log: Logger): Promise<void> {
  const kms = new KMSClient({ endpoint: kmsUrl, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const address = await new KmsEd25519Signer(kms, keyId).getAddress();
    await node.fund(address, 1_000n * LAMPORTS_PER_SOL);
    log.info(`solana: fee payer ${address} funded with 1000 SOL`);
  } finally {
    kms.destroy();
  }
}

/** Sets `process.env` from `env` and makes the shared config and the DynamoDB and SQS clients read it again. */
function applyEnv(env: Record<string, string>): void {
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
  resetConfig();
  resetDb();
  resetSqs();
}

export async function startStack(options: StackOptions = {}): Promise<StackHandle> {
  const log = createLogger(options.logLevel ?? 'info');
  const parts = { anvil: true, pollers: true, http: true, contracts: true, tron: true, solana: true, btc: true, ...options.parts };
  const ports = options.ports ?? {};
  // This SDK still runs on Node 20; its notice about future versions is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

  // First, so that a missing Java is the one line a person sees, before anything else starts.
  await checkJava();

  const persistent = options.dataDir !== null;
  const dataDir = persistent ? resolve(options.dataDir ?? DEFAULT_DATA_DIR) : await mkdtemp(join(tmpdir(), 'gateway-stack-'));
  await mkdir(dataDir, { recursive: true });
  // Before anything is wiped or started: a live stack on this dir refuses us here.
  const lock: StackLock | undefined = persistent ? acquireStackLock(dataDir, log.info) : undefined;
  if (options.fresh && persistent) {
    try {
      for (const entry of await readdir(dataDir)) {
        if (join(dataDir, entry) !== lock?.path) await rm(join(dataDir, entry), { recursive: true, force: true });
      }
    } catch (error) {
      lock?.release();
      throw error;
    }
    log.info(`stack: wiped ${dataDir}`);
  }

  /** Everything started, to close in reverse order. */
  const started: { name: string; close: () => Promise<void> }[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.off('exit', onExit);
      for (const part of started.reverse()) {
        try {
          await part.close();
        } catch (error) {
          log.error(`stack: stopping ${part.name} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      if (!persistent) await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
      serveLocalGasStation(undefined);
      lock?.release();
      log.info('stack: stopped');
    })();
    return stopping;
  };
  // If this process exits without stop(), the synchronous part of every close() still runs: child processes
  // (DynamoDB Local's java, anvil) get their kill signal.
  const onExit = (): void => {
    for (const part of [...started].reverse()) void part.close().catch(() => undefined);
    lock?.release();
  };
  process.on('exit', onExit);

  try {
    const dynamodbPromise = startDynamoDb({
      port: ports.dynamodb ?? 0,
      dbPath: persistent ? join(dataDir, 'dynamodb') : null,
      region: LOCAL_REGION,
      log: log.info,
    });
    const sqsPromise = startSqs({
      port: ports.sqs ?? 0,
      region: LOCAL_REGION,
      ...(options.workers ? { workers: options.workers } : {}),
      ...(options.visibilityTimeoutSeconds !== undefined ? { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds } : {}),
      log: log.info,
    });
    // Objects persist with the rest of the data; a stack in memory gets a temporary dir of its own.
    const s3Promise = startS3({
      port: ports.s3 ?? 0,
      ...(persistent ? { directory: join(dataDir, 's3') } : {}),
      buckets: [LOCAL_EXPORT_BUCKET],
      credentials: [LOCAL_CREDENTIALS],
      log: log.info,
    });
    const kmsPromise = startKms(ports.kms ?? 0, persistent ? join(dataDir, 'kms') : undefined, LOCAL_REGION, log);
    const chainsPromise = parts.anvil
      ? startLocalChains({ basePort: ports.anvil, dataDir: persistent ? dataDir : undefined, log }).then((chains) => ({
          chains,
          close: () => Promise.all(chains.map((c) => c.close())).then(() => undefined),
        }))
      : Promise.resolve(undefined);

    // Register each part as soon as it is up, so a failure of another still stops it.
    const track = <T extends { close(): Promise<void> }>(name: string, p: Promise<T>): Promise<T> =>
      p.then((part) => {
        started.push({ name, close: () => part.close() });
        return part;
      });
    const optional = <T extends { close(): Promise<void> }>(name: string, p: Promise<T | undefined>): Promise<T | undefined> =>
      p.then((part) => (part ? track(name, Promise.resolve(part)) : undefined));
    // Wait for all of them, so that none is left running unseen when another fails.
    const settled = await Promise.allSettled([
      track('dynamodb', dynamodbPromise),
      track('sqs', sqsPromise),
      track('kms', kmsPromise),
      optional('anvil', chainsPromise),
      track('s3', s3Promise),
    ] as const);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    const value = <T>(s: PromiseSettledResult<T>): T => (s as PromiseFulfilledResult<T>).value;
    const dynamodb = value(settled[0]);
    const sqs = value(settled[1]);
    const kmsServer = value(settled[2]);
    const chains: readonly LocalEvmChain[] = value(settled[3])?.chains ?? [];
    const s3 = value(settled[4]);
    await dynamodb.ensureTable(TABLE_NAME);

    const env: Record<string, string> = {
      TABLE_NAME,
      AWS_REGION: LOCAL_REGION,
      AWS_DEFAULT_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamodb.url,
      AWS_ENDPOINT_URL_DYNAMODB_STREAMS: dynamodb.url,
      AWS_ENDPOINT_URL_SQS: sqs.url,
      AWS_ENDPOINT_URL_S3: s3.url,
      EXPORT_BUCKET: LOCAL_EXPORT_BUCKET,
      STAGE: 'local',
      ALLOW_LOOPBACK_CALLBACKS: 'true',
    };
    for (const q of QUEUES) env[queueUrlEnv(q.name)] = sqs.queueUrls[q.name];
    if (kmsServer) env.AWS_ENDPOINT_URL_KMS = kmsServer.url;
    if (chains.length > 0) Object.assign(env, evmEnv(chains, undefined));
    serveLocalGasStation(chains.find((c) => c.network === 'POLYGON'));
    // A session token from the developer's shell would be sent along with the fake keys.
    delete process.env.AWS_SESSION_TOKEN;
    applyEnv(env);

    let keys: LocalKeys | undefined;
    let contracts: LocalContracts | undefined;
    let tron: TronNode | undefined;
    if (kmsServer) {
      const kms = new KMSClient({ endpoint: kmsServer.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
      try {
        keys = await ensureKeys(kms, persistent ? dataDir : null, log);
        env.SECRETS_KEY_ID = keys.secretsKeyId;
        env.HOT_WALLET_KEY_ID = keys.signingKeyId;
        env.SIGNING_KEY_ID = keys.signingKeyId;
        env.SOLANA_FEE_PAYER_KEY_ID = keys.solanaFeePayerKeyId;
        applyEnv(env);
        if (parts.tron) {
          const hotWallet = toTronBase58(await new KmsSigner(kms, keys.signingKeyId).getAddress());
          const node = await startLocalTron(hotWallet, ports.tron, log);
          started.push({ name: 'tron', close: () => node.close() });
          tron = node;
        }
        if (chains.length > 0 && parts.contracts) {
          try {
            contracts = await deployContracts(chains, kms, keys.signingKeyId, log);
          } catch (error) {
            // The API runs without contracts; chain features will say what is missing.
            log.error(`contracts: not deployed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
          }
        }
      } finally {
        kms.destroy();
      }
    }
    let solana: SolanaNode | undefined;
    if (parts.solana) {
      const node = await startLocalSolana(ports.solana, log);
      started.push({ name: 'solana', close: () => node.close() });
      solana = node;
      if (kmsServer && keys) await fundSolanaFeePayer(node, kmsServer.url, keys.solanaFeePayerKeyId, log);
    }
    let btc: BitcoinNode | undefined;
    if (parts.btc) {
      const node = await startLocalBitcoin(ports.btc, log);
      started.push({ name: 'bitcoin', close: () => node.close() });
      btc = node;
    }
    if (chains.length > 0) Object.assign(env, evmEnv(chains, contracts));
    if (tron) tronEnv(env, tron);
    if (solana) solanaEnv(env, solana);
    if (btc) bitcoinEnv(env, btc);
    // Deployment ran in automine; from here on blocks come at the chains' pace, like on real networks.
    await startMining(chains, options.blockTimeSeconds === undefined ? DEFAULT_BLOCK_TIME_SECONDS : options.blockTimeSeconds);

    let http: LocalHttpServer | undefined;
    if (parts.http) {
      http = await startHttpServer({
        ...(ports.http !== undefined ? { port: ports.http } : {}),
        host: '127.0.0.1',
        ...(options.httpFunctions ? { functions: options.httpFunctions } : {}),
        rootDir: REPO_ROOT,
        log: log.info,
        logRequests: options.logRequests ?? false,
      });
      const server = http;
      started.push({ name: 'http', close: () => server.close() });
      // Set before the event loop turns: no request has been dispatched (and no handler imported) yet.
      env.PUBLIC_BASE_URL = http.url;
      lock?.update({ apiUrl: http.url });
    }
    applyEnv(env);

    let pollers: Pollers | undefined;
    if (parts.pollers) {
      // The event router also prints the checkout page of each new payment (infra/local/dev/checkout-links.ts).
      const workers = (options.workers ?? WORKER_FUNCTIONS).map((w) =>
        w.name === 'event-router' && w.entry ? announcingCheckouts({ ...w, entry: w.entry } as WorkerFunction, REPO_ROOT, log.info) : w,
      );
      pollers = startPollers({
        workers,
        rootDir: REPO_ROOT,
        region: LOCAL_REGION,
        sqsUrl: sqs.url,
        queueUrls: sqs.queueUrls,
        dynamodbUrl: dynamodb.url,
        tableName: TABLE_NAME,
        dataDir: persistent ? dataDir : null,
        ...(options.stream ? { stream: options.stream } : {}),
        ...(options.schedule ? { schedule: options.schedule } : {}),
        log: log.info,
      });
      const p = pollers;
      started.push({ name: 'pollers', close: () => p.stop() });
    }

    const stackJson: StackJson = {
      apiUrl: http?.url ?? null,
      rpcUrls: {
        ...Object.fromEntries(chains.map((c) => [c.network, c.rpcUrl])),
        ...(tron ? { TRX: tron.url } : {}),
        ...(solana ? { SOL: solana.url } : {}),
        ...(btc ? { BTC: btc.url } : {}),
      },
      contracts: solana ? { ...contracts, networks: { ...contracts?.networks, SOL: { tokens: { USDT: solana.mint } } } } : (contracts ?? {}),
      queueUrls: { ...sqs.queueUrls },
      dlqUrls: { ...sqs.dlqUrls },
      dynamodbUrl: dynamodb.url,
      sqsUrl: sqs.url,
      kmsUrl: kmsServer?.url ?? null,
      s3Url: s3.url,
      exportBucket: LOCAL_EXPORT_BUCKET,
      tableName: TABLE_NAME,
      keys: { signingKeyId: keys?.signingKeyId ?? null, secretsKeyId: keys?.secretsKeyId ?? null },
      env: { ...env },
      processes: { stack: process.pid, dynamodb: dynamodb.pid ?? null, anvil: Object.fromEntries(chains.map((c) => [c.network, c.pid])) },
      startedAt: new Date().toISOString(),
    };
    await writeJson(join(dataDir, 'stack.json'), stackJson);
    return { apiUrl: stackJson.apiUrl, env, stackJson, dataDir, dynamodb, sqs, s3, pollers, http, tron, solana, btc, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
