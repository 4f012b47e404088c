/**
 * The embedded local stack (design section 8): DynamoDB Local, an SQS server, a KMS-compatible endpoint, anvil,
 * the API Gateway stand-in and the event-source pollers, composed in one process around the same handler
 * modules CDK deploys. `npm start` (infra/local/main.ts) and the integration tests (test/support/stack.ts) use it.
 *
 * The environment the handlers read (process.env) is set BEFORE any handler module is imported: the HTTP server
 * and the pollers import handler modules lazily, on first use.
 */
import { CreateAliasCommand, CreateKeyCommand, DescribeKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUEUES, queueUrlEnv } from '../definition.js';
import { resetConfig } from '../../shared/config/config.js';
import { CURRENCY_LIST } from '../../shared/domain/currencies.js';
import { resetDb } from '../../shared/store/client.js';
import { LOCAL_CREDENTIALS, checkJava, startDynamoDb } from './dynamodb.js';
import type { LocalDynamoDb } from './dynamodb.js';
import { startHttpServer } from './http-server.js';
import type { HttpFunction, LocalHttpServer } from './http-server.js';
import { startPollers } from './pollers.js';
import type { Pollers, PollerWorker, ScheduleOptions, StreamOptions } from './pollers.js';
import { startSqs } from './sqs.js';
import type { LocalSqs } from './sqs.js';
import { startTronNode } from './tron.js';
import type { TronNode } from './tron.js';
import { KmsSigner } from '../../shared/chain/signer/kms-signer.js';
import { toTronBase58, tronAddressFromBytes } from '../../shared/chain/tron/create2.js';

export { LocalStackSetupError } from './dynamodb.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DEFAULT_DATA_DIR = join(REPO_ROOT, '.local');
export const TABLE_NAME = 'gateway';
export const LOCAL_REGION = 'us-east-1';
/** The local chain stands in for Ethereum mainnet (network code ETH of the catalogue). */
export const LOCAL_EVM_NETWORK = 'ETH';
export const LOCAL_CHAIN_ID = 31337;

export type LogLevel = 'silent' | 'error' | 'info' | 'debug';

export interface StackParts {
  /** Local EVM chain (and contract deployment). Default true. */
  readonly anvil?: boolean;
  /** Queue, stream and schedule pollers feeding the workers. Default true. */
  readonly pollers?: boolean;
  /** The HTTP API. Default true. */
  readonly http?: boolean;
  /** Deploy the contracts on anvil (when the deploy module and the build artifacts exist). Default true. */
  readonly contracts?: boolean;
  /** The local TRON node (TronGrid-compatible API; in memory, a block every 3 s). Default true. */
  readonly tron?: boolean;
}

export interface StackPorts {
  /** Default: `PORT` env, else 3000. 0 = free port. */
  readonly http?: number;
  readonly dynamodb?: number;
  readonly sqs?: number;
  readonly kms?: number;
  readonly anvil?: number;
  readonly tron?: number;
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
  /** Mining interval of anvil; automine (a block per transaction) when absent. */
  readonly blockTimeSeconds?: number;
}

export interface StackJson {
  apiUrl: string | null;
  rpcUrls: Record<string, string>;
  contracts: Record<string, unknown>;
  queueUrls: Record<string, string>;
  dlqUrls: Record<string, string>;
  dynamodbUrl: string;
  sqsUrl: string;
  kmsUrl: string | null;
  tableName: string;
  keys: { signingKeyId: string | null; secretsKeyId: string | null };
  /** The environment the handlers run with (to reproduce it in a script or a debugger). */
  env: Record<string, string>;
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
  readonly pollers: Pollers | undefined;
  readonly http: LocalHttpServer | undefined;
  stop(): Promise<void>;
}

export interface Logger {
  error(line: string): void;
  info(line: string): void;
  debug(line: string): void;
}

export function createLogger(level: LogLevel = 'info'): Logger {
  const rank = { silent: 0, error: 1, info: 2, debug: 3 }[level];
  const write = (line: string): void => {
    process.stderr.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`);
  };
  const noop = (): void => undefined;
  return { error: rank >= 1 ? write : noop, info: rank >= 2 ? write : noop, debug: rank >= 3 ? write : noop };
}

interface AnvilHandle {
  readonly rpcUrl: string;
  close(): Promise<void>;
}

interface KmsHandle {
  readonly url: string;
  close(): Promise<void>;
}

interface LocalKeys {
  secretsKeyId: string;
  signingKeyId: string;
}

async function writeJson(file: string, data: unknown): Promise<void> {
  await writeFile(`${file}.tmp`, `${JSON.stringify(data, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Reuses the keys recorded in `<dataDir>/keys.json` if KMS still has them; creates (and records) them otherwise. */
async function ensureKeys(kms: KMSClient, dataDir: string | null, log: Logger): Promise<LocalKeys> {
  const file = dataDir ? join(dataDir, 'keys.json') : undefined;
  const recorded = file ? await readJson(file) : undefined;
  /** The recorded key id if KMS still knows it. */
  const known = async (keyId: unknown): Promise<string | undefined> => {
    if (typeof keyId !== 'string' || keyId === '') return undefined;
    try {
      return (await kms.send(new DescribeKeyCommand({ KeyId: keyId }))).KeyMetadata?.KeyId ? keyId : undefined;
    } catch {
      return undefined;
    }
  };
  const old = typeof recorded === 'object' && recorded !== null ? (recorded as Partial<Record<keyof LocalKeys, unknown>>) : {};
  const create = async (kind: 'secrets' | 'hot-wallet'): Promise<string> => {
    const out = await kms.send(
      new CreateKeyCommand(
        kind === 'secrets'
          ? { KeySpec: 'SYMMETRIC_DEFAULT', KeyUsage: 'ENCRYPT_DECRYPT', Description: 'Payment gateway (local) stored-secrets key' }
          : { KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY', Description: 'Payment gateway (local) hot-wallet signing key' },
      ),
    );
    const keyId = out.KeyMetadata?.KeyId;
    if (!keyId) throw new Error(`KMS CreateKey (${kind}) returned no key id`);
    // Same alias names as CDK (infra/cdk/constructs/keys.ts); best effort.
    await kms.send(new CreateAliasCommand({ AliasName: `alias/payment-gateway/local/${kind}`, TargetKeyId: keyId })).catch(() => undefined);
    log.info(`kms: created the ${kind} key ${keyId}`);
    return keyId;
  };
  const keys: LocalKeys = {
    secretsKeyId: (await known(old.secretsKeyId)) ?? (await create('secrets')),
    signingKeyId: (await known(old.signingKeyId)) ?? (await create('hot-wallet')),
  };
  if (file && (keys.secretsKeyId !== old.secretsKeyId || keys.signingKeyId !== old.signingKeyId)) await writeJson(file, keys);
  return keys;
}

/**
 * CONTRACT DEPLOYMENT CALL SITE (the only one): deterministic forwarder factory + test tokens on the local chain,
 * through shared/chain/evm/deploy.ts. The dev account 0 of anvil deploys and owns; the hot wallet is the KMS
 * signing key's address (funded with ETH for gas and a float of each test token for withdrawals); the treasury
 * is dev account 1. Idempotent: on a persisted
 * chain nothing is deployed again.
 */
async function deployContracts(rpcUrl: string, kms: KMSClient, signingKeyId: string, log: Logger): Promise<Record<string, unknown>> {
  const deployModule = join(REPO_ROOT, 'shared/chain/evm/deploy.ts');
  if (!existsSync(deployModule)) {
    log.info('contracts: shared/chain/evm/deploy.ts not found; nothing deployed');
    return {};
  }
  const [{ JsonRpcProvider, parseEther }, deploy, { KmsSigner }] = await Promise.all([
    import('ethers'),
    import('../../shared/chain/evm/deploy.js'),
    import('../../shared/chain/signer/kms-signer.js'),
  ]);
  const provider = new JsonRpcProvider(rpcUrl, LOCAL_CHAIN_ID, { staticNetwork: true, pollingInterval: 250 });
  try {
    const owner = await provider.getSigner(0);
    const treasury = await provider.getSigner(1);
    const hotWallet = await new KmsSigner(kms, signingKeyId, provider).getAddress();
    const factory = await deploy.ensureForwarderFactory(owner, {
      owner: owner.address,
      hotWallet,
      treasury: treasury.address,
    });
    const tokens = await deploy.deployTestTokens(owner);
    // The hot wallet pays gas for sweeps and withdrawals.
    const minimum = parseEther('10');
    if ((await provider.getBalance(hotWallet)) < minimum) {
      await (await owner.sendTransaction({ to: hotWallet, value: parseEther('100') })).wait();
    }
    // ... and holds a float of every test token, from which withdrawals are paid (sweeps go to the treasury).
    const { Contract } = await import('ethers');
    const { ERC20_ABI } = await import('../../shared/chain/evm/abi.js');
    for (const [symbol, token] of Object.entries(tokens)) {
      const float = 1_000_000n * 10n ** BigInt(deploy.TEST_TOKENS[symbol as keyof typeof deploy.TEST_TOKENS].decimals);
      const held = (await new Contract(token, ERC20_ABI, provider).getFunction('balanceOf')(hotWallet)) as bigint;
      if (held < float / 2n) await deploy.mintTestToken(owner, token, hotWallet, float - held);
    }
    log.info(`contracts: factory ${factory.factory}${factory.deployed ? ' (deployed)' : ''}, tokens ${Object.keys(tokens).join(', ')}`);
    return {
      forwarderFactory: factory.factory,
      forwarderImplementation: factory.implementation,
      tokens,
      hotWallet,
      owner: owner.address,
      treasury: treasury.address,
    };
  } finally {
    provider.destroy();
  }
}

/**
 * What the handlers learn of the deployed contracts: `FORWARDER_FACTORIES` (ETH's), and `TOKEN_CONTRACTS` mapping each
 * catalogue currency of the local chain's network to the test token of the same symbol.
 */
export function contractEnv(contracts: Record<string, unknown>): Record<string, string> {
  const env: Record<string, string> = {};
  if (typeof contracts.forwarderFactory === 'string') env.FORWARDER_FACTORIES = JSON.stringify({ [LOCAL_EVM_NETWORK]: contracts.forwarderFactory });
  const tokens = contracts.tokens;
  if (typeof tokens === 'object' && tokens !== null) {
    const bySymbol = tokens as Record<string, unknown>;
    const overrides: Record<string, string> = {};
    for (const currency of CURRENCY_LIST) {
      const address = bySymbol[currency.token];
      if (currency.network === LOCAL_EVM_NETWORK && !currency.native && typeof address === 'string') overrides[currency.code] = address;
    }
    env.TOKEN_CONTRACTS = JSON.stringify(overrides);
  }
  return env;
}

/** Sets `process.env` from `env` and makes the shared config and DynamoDB client read it again. */
function applyEnv(env: Record<string, string>): void {
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
  resetConfig();
  resetDb();
}

/**
 * The local TRON network: a USDT token, the forwarder factory (its TRON CREATE2 addresses) and its
 * implementation, and a treasury, all at fixed addresses of the local node; the hot wallet is the KMS key's
 * TRON address, funded with TRX for fees and 1,000,000 USDT for withdrawals.
 */
export const LOCAL_TRON = {
  usdt: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  factory: tronAddressFromBytes(Uint8Array.from([0x41, ...new Array<number>(19).fill(0), 0xf1])),
  implementation: tronAddressFromBytes(Uint8Array.from([0x41, ...new Array<number>(19).fill(0), 0xf2])),
  treasury: tronAddressFromBytes(Uint8Array.from([0x41, ...new Array<number>(19).fill(0), 0xf3])),
} as const;

async function startLocalTron(hotWallet: string, port: number | undefined, log: Logger): Promise<TronNode> {
  const node = await startTronNode({
    ...(port !== undefined ? { port } : {}),
    tokens: [LOCAL_TRON.usdt],
    factory: { factory: LOCAL_TRON.factory, implementation: LOCAL_TRON.implementation, hotWallet, treasury: LOCAL_TRON.treasury },
    balances: { [hotWallet]: 100_000_000_000n },
  });
  // A float of USDT for withdrawals (sweeps go to the treasury), in the first block.
  node.transfer(LOCAL_TRON.usdt, hotWallet, 1_000_000_000_000n);
  log.info(`tron: local node at ${node.url} (hot wallet ${hotWallet}, factory ${LOCAL_TRON.factory})`);
  return node;
}

/** Adds the local TRON network to the handlers' environment (merged into the EVM settings). */
function tronEnv(env: Record<string, string>, node: TronNode): void {
  const merged = (key: string, add: Record<string, string>): string => JSON.stringify({ ...(JSON.parse(env[key] ?? '{}') as Record<string, string>), ...add });
  env.TRON_API_URL = node.url;
  env.FORWARDER_FACTORIES = merged('FORWARDER_FACTORIES', { TRX: LOCAL_TRON.factory });
  env.FORWARDER_IMPLEMENTATION_TRX = LOCAL_TRON.implementation;
  env.TOKEN_CONTRACTS = merged('TOKEN_CONTRACTS', { USDTTRC20: LOCAL_TRON.usdt });
}

export async function startStack(options: StackOptions = {}): Promise<StackHandle> {
  const log = createLogger(options.logLevel ?? 'info');
  const parts = { anvil: true, pollers: true, http: true, contracts: true, tron: true, ...options.parts };
  const ports = options.ports ?? {};
  // This SDK still runs on Node 20; its notice about future versions is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

  // First, so that a missing Java is the one line a person sees, before anything else starts.
  await checkJava();

  const persistent = options.dataDir !== null;
  const dataDir = persistent ? resolve(options.dataDir ?? DEFAULT_DATA_DIR) : await mkdtemp(join(tmpdir(), 'gateway-stack-'));
  if (options.fresh && persistent) {
    await rm(dataDir, { recursive: true, force: true });
    log.info(`stack: wiped ${dataDir}`);
  }
  await mkdir(dataDir, { recursive: true });

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
      log.info('stack: stopped');
    })();
    return stopping;
  };
  // If this process exits without stop(), the synchronous part of every close() still runs: child processes
  // (DynamoDB Local's java, anvil) get their kill signal.
  const onExit = (): void => {
    for (const part of [...started].reverse()) void part.close().catch(() => undefined);
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
    const kmsPromise = startKms(ports.kms ?? 0, persistent ? join(dataDir, 'kms') : undefined, log);
    const anvilPromise = parts.anvil
      ? startLocalAnvil(ports.anvil, persistent ? join(dataDir, 'anvil-state.json') : undefined, options.blockTimeSeconds, log)
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
      optional('kms', kmsPromise),
      optional('anvil', anvilPromise),
    ] as const);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    const value = <T>(s: PromiseSettledResult<T>): T => (s as PromiseFulfilledResult<T>).value;
    const dynamodb = value(settled[0]);
    const sqs = value(settled[1]);
    const kmsServer = value(settled[2]);
    const anvil = value(settled[3]);
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
      STAGE: 'local',
      ALLOW_LOOPBACK_CALLBACKS: 'true',
    };
    for (const q of QUEUES) env[queueUrlEnv(q.name)] = sqs.queueUrls[q.name];
    if (kmsServer) env.AWS_ENDPOINT_URL_KMS = kmsServer.url;
    if (anvil) {
      env.EVM_RPC_URLS = JSON.stringify({ [LOCAL_EVM_NETWORK]: anvil.rpcUrl });
    }
    // A session token from the developer's shell would be sent along with the fake keys.
    delete process.env.AWS_SESSION_TOKEN;
    applyEnv(env);

    let keys: LocalKeys | undefined;
    let contracts: Record<string, unknown> = {};
    let tron: TronNode | undefined;
    if (kmsServer) {
      const kms = new KMSClient({ endpoint: kmsServer.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
      try {
        keys = await ensureKeys(kms, persistent ? dataDir : null, log);
        env.SECRETS_KEY_ID = keys.secretsKeyId;
        env.HOT_WALLET_KEY_ID = keys.signingKeyId;
        env.SIGNING_KEY_ID = keys.signingKeyId;
        applyEnv(env);
        if (parts.tron) {
          const hotWallet = toTronBase58(await new KmsSigner(kms, keys.signingKeyId).getAddress());
          const node = await startLocalTron(hotWallet, ports.tron, log);
          started.push({ name: 'tron', close: () => node.close() });
          tron = node;
        }
        if (anvil && parts.contracts) {
          try {
            contracts = await deployContracts(anvil.rpcUrl, kms, keys.signingKeyId, log);
          } catch (error) {
            // The API runs without contracts; chain features will say what is missing.
            log.error(`contracts: not deployed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
          }
        }
      } finally {
        kms.destroy();
      }
    }
    Object.assign(env, contractEnv(contracts));
    if (tron) tronEnv(env, tron);

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
    }
    applyEnv(env);

    let pollers: Pollers | undefined;
    if (parts.pollers) {
      pollers = startPollers({
        ...(options.workers ? { workers: options.workers } : {}),
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
      rpcUrls: { ...(anvil ? { [LOCAL_EVM_NETWORK]: anvil.rpcUrl } : {}), ...(tron ? { TRX: tron.url } : {}) },
      contracts,
      queueUrls: { ...sqs.queueUrls },
      dlqUrls: { ...sqs.dlqUrls },
      dynamodbUrl: dynamodb.url,
      sqsUrl: sqs.url,
      kmsUrl: kmsServer?.url ?? null,
      tableName: TABLE_NAME,
      keys: { signingKeyId: keys?.signingKeyId ?? null, secretsKeyId: keys?.secretsKeyId ?? null },
      env: { ...env },
      startedAt: new Date().toISOString(),
    };
    await writeJson(join(dataDir, 'stack.json'), stackJson);
    return { apiUrl: stackJson.apiUrl, env, stackJson, dataDir, dynamodb, sqs, pollers, http, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Parts written elsewhere (infra/local/kms, infra/local/anvil.ts), loaded when present                         */
/* ------------------------------------------------------------------------------------------------------------ */

async function startKms(port: number, dataDir: string | undefined, log: Logger): Promise<KmsHandle | undefined> {
  if (!existsSync(join(REPO_ROOT, 'infra/local/kms/server.ts'))) {
    log.error('kms: infra/local/kms/server.ts not found; running without KMS (no keys, no signing)');
    return undefined;
  }
  const { startKmsServer } = await import('./kms/server.js');
  const server = await startKmsServer({ host: '127.0.0.1', port, ...(dataDir ? { dataDir } : {}), region: LOCAL_REGION });
  log.info(`kms: KMS on ${server.url}${dataDir ? ` (keys in ${dataDir})` : ' (in memory)'}`);
  return server;
}

async function startLocalAnvil(
  port: number | undefined,
  stateFile: string | undefined,
  blockTimeSeconds: number | undefined,
  log: Logger,
): Promise<AnvilHandle | undefined> {
  if (!existsSync(join(REPO_ROOT, 'infra/local/anvil.ts'))) {
    log.error('anvil: infra/local/anvil.ts not found; running without a local chain');
    return undefined;
  }
  const { startAnvil } = await import('./anvil.js');
  const anvil = await startAnvil({
    ...(port ? { port } : {}),
    chainId: LOCAL_CHAIN_ID,
    ...(blockTimeSeconds !== undefined ? { blockTimeSeconds } : {}),
    ...(stateFile ? { stateFile } : {}),
  });
  log.info(`anvil: chain ${LOCAL_EVM_NETWORK} (id ${anvil.chainId}) on ${anvil.rpcUrl}${stateFile ? ` (state in ${stateFile})` : ''}`);
  return anvil;
}
