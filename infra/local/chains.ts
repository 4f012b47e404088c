/**
 * The chains of the local stack: one anvil per EVM network of the catalogue, each with the network's real
 * chain id and the gateway's contracts deployed on it, and the local TRON node with its fixed contract
 * addresses; and what the handlers learn of them (their environment).
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { Contract, FetchRequest, JsonRpcProvider, formatUnits, parseEther } from 'ethers';
import { join } from 'node:path';
import { ERC20_ABI } from '../../shared/chain/evm/abi.js';
import { KmsSigner } from '../../shared/chain/signer/kms-signer.js';
import { tronAddressFromBytes } from '../../shared/domain/chain-addresses.js';
import { CURRENCY_LIST, NETWORKS } from '../../shared/domain/currencies.js';
import type { NetworkCode, NetworkDefinition } from '../../shared/domain/currencies.js';
import type { AnvilInstance } from './anvil.js';
import { deployBatchPayout, deploySubscriptionCollector, deployTestToken, ensureForwarderFactory, mintTestToken } from './dev/deploy.js';
import type { TestTokenSpec } from './dev/deploy.js';
import type { Logger } from './log.js';
import { startTronNode } from './tron.js';
import type { TronNode } from './tron.js';

/** The EVM networks of the catalogue, in catalogue order: the local stack runs one anvil for each. */
export const LOCAL_EVM_NETWORKS: readonly NetworkDefinition[] = Object.values(NETWORKS).filter((n) => n.family === 'evm');

/** The chain id a network's local chain runs with (the catalogue's `chainId.local`, the mainnet id). */
export function localChainId(network: NetworkDefinition): number {
  const id = network.chainId.local;
  if (id === null) throw new Error(`network ${network.code} has no local chain id`);
  return id;
}

/** The default interval mining of `npm start`: a block every second on every local EVM chain. */
export const DEFAULT_BLOCK_TIME_SECONDS = 1;

/**
 * The local test tokens of a network: one per catalogue currency of the network with a contract, with that
 * currency's symbol and decimals (USDT has 6 decimals on Ethereum and 18 on BNB Smart Chain).
 */
export function localTestTokens(network: NetworkCode): Record<string, TestTokenSpec> {
  const specs: Record<string, TestTokenSpec> = {};
  for (const currency of CURRENCY_LIST) {
    if (currency.network !== network || currency.native) continue;
    specs[currency.token] = { name: `${currency.name} (test)`, symbol: currency.token, decimals: currency.decimals };
  }
  return specs;
}

export interface LocalEvmChain {
  readonly network: NetworkCode;
  readonly chainId: number;
  readonly rpcUrl: string;
  readonly pid: number;
  close(): Promise<void>;
}

/**
 * Starts one anvil per EVM network, in parallel, in automine (a block per transaction) so that deployment does
 * not wait for blocks; `startMining` switches them to interval mining afterwards. `basePort` (when not 0) binds
 * the networks to consecutive ports from it, in catalogue order. With `dataDir`, each chain's state is in
 * `anvil-<network>.json` there, dumped every second (a crash loses at most that) and on a graceful stop.
 * If any chain fails to start, the others are stopped and the error is thrown.
 */
export async function startLocalChains(options: {
  readonly basePort: number | undefined;
  readonly dataDir: string | undefined;
  readonly log: Logger;
}): Promise<LocalEvmChain[]> {
  const { startAnvil } = await import('./anvil.js');
  const settled = await Promise.allSettled(
    LOCAL_EVM_NETWORKS.map(async (network, index): Promise<LocalEvmChain> => {
      const stateFile = options.dataDir ? join(options.dataDir, `anvil-${network.code.toLowerCase()}.json`) : undefined;
      const anvil: AnvilInstance = await startAnvil({
        ...(options.basePort ? { port: options.basePort + index } : {}),
        chainId: localChainId(network),
        ...(stateFile ? { stateFile, stateIntervalSeconds: 1 } : {}),
      });
      return { network: network.code, chainId: anvil.chainId, rpcUrl: anvil.rpcUrl, pid: anvil.pid, close: () => anvil.close() };
    }),
  );
  const chains = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(chains.map((c) => c.close()));
    throw failed.reason;
  }
  for (const c of chains) options.log.info(`anvil: chain ${c.network} (id ${c.chainId}) on ${c.rpcUrl}`);
  return chains;
}

/** Interval mining (a block every `blockTimeSeconds`) on every chain; null leaves them in automine. */
export async function startMining(chains: readonly LocalEvmChain[], blockTimeSeconds: number | null): Promise<void> {
  if (blockTimeSeconds === null) return;
  await Promise.all(
    chains.map(async (chain) => {
      const provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true });
      try {
        await provider.send('evm_setIntervalMining', [blockTimeSeconds]);
      } finally {
        provider.destroy();
      }
    }),
  );
}

/**
 * ethers takes the fee data of chain id 137 (Polygon) from the Polygon gas station
 * (https://gasstation.polygon.technology/v2), not from the node. With the local POLYGON chain on its real id,
 * the local stack stands in for that service too, as the local TRON node does for TronGrid: requests of this
 * process to the gas station are answered from the local chain's own fee data; every other request goes out
 * as before. Registered once per process; `chain` (or undefined, when the stack stops) picks the chain.
 */
const POLYGON_GAS_STATION_HOST = 'gasstation.polygon.technology';
let gasStationChain: string | undefined;
let gasStationRegistered = false;

export function serveLocalGasStation(chain: LocalEvmChain | undefined): void {
  gasStationChain = chain?.rpcUrl;
  if (gasStationRegistered || !chain) return;
  gasStationRegistered = true;
  const passThrough = FetchRequest.createGetUrlFunc();
  FetchRequest.registerGetUrl(async (request, signal) => {
    const rpcUrl = gasStationChain;
    if (!rpcUrl || new URL(request.url).hostname !== POLYGON_GAS_STATION_HOST) return passThrough(request, signal);
    const rpc = async (method: string): Promise<bigint> => {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
      });
      return BigInt(((await res.json()) as { result: string }).result);
    };
    const [gasPrice, tip] = await Promise.all([rpc('eth_gasPrice'), rpc('eth_maxPriorityFeePerGas')]);
    const fees = { maxFee: formatUnits(2n * gasPrice + tip, 9), maxPriorityFee: formatUnits(tip, 9) };
    const body = JSON.stringify({ safeLow: fees, standard: fees, fast: fees, estimatedBaseFee: formatUnits(gasPrice, 9) });
    return { statusCode: 200, statusMessage: 'OK', headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(body) };
  });
}

/** What the local stack deployed on one EVM chain. */
export interface LocalChainContracts {
  readonly chainId: number;
  /** Test token addresses by symbol. */
  readonly tokens: Record<string, string>;
}

/**
 * stack.json `contracts`: the factory, its implementation, the hot wallet, the owner and the treasury (the same
 * addresses on every EVM chain: deterministic deployment, same keys), `networks` with each chain's tokens,
 * and `tokens`, Ethereum's, as before there was a chain per network.
 */
export interface LocalContracts {
  readonly forwarderFactory: string;
  readonly forwarderImplementation: string;
  /** The hot wallet's batch payout contract (contracts/BatchPayout.sol), at the same address on every chain. */
  readonly batchPayout: string;
  /** The subscription collector charged by the hot wallet (contracts/SubscriptionCollector.sol), same address on every chain. */
  readonly subscriptionCollector: string;
  readonly hotWallet: string;
  readonly owner: string;
  readonly treasury: string;
  readonly networks: Partial<Record<NetworkCode, LocalChainContracts>>;
  readonly tokens: Record<string, string>;
}

interface ChainDeployment {
  readonly factory: string;
  readonly implementation: string;
  readonly batchPayout: string;
  readonly subscriptionCollector: string;
  readonly hotWallet: string;
  readonly owner: string;
  readonly treasury: string;
  readonly tokens: Record<string, string>;
}

/**
 * Deploys on one chain: the deterministic forwarder factory and the network's test tokens through
 * infra/local/dev/deploy.ts. The dev account 0 of anvil deploys and owns; the hot wallet is the KMS signing
 * key's address (funded with the native coin for gas and a float of each test token for withdrawals); the
 * treasury is dev account 1. Idempotent: on a persisted chain nothing is deployed again.
 */
async function deployOnChain(chain: LocalEvmChain, kms: KMSClient, signingKeyId: string): Promise<ChainDeployment> {
  const provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true, pollingInterval: 250 });
  try {
    const owner = await provider.getSigner(0);
    const treasury = await provider.getSigner(1);
    const hotWallet = await new KmsSigner(kms, signingKeyId, provider).getAddress();
    const factory = await ensureForwarderFactory(owner, { owner: owner.address, hotWallet, treasury: treasury.address });
    // Pays many ERC-20 withdrawals in one transaction once the hot wallet has approved it for a token (the batcher asks).
    const batchPayout = await deployBatchPayout(owner, { hotWallet });
    // Pulls approved subscribers' charges, only when the hot wallet calls it (pull subscriptions).
    const subscriptionCollector = await deploySubscriptionCollector(owner, { collector: hotWallet });
    const tokens: Record<string, string> = {};
    for (const [symbol, spec] of Object.entries(localTestTokens(chain.network))) tokens[symbol] = await deployTestToken(owner, spec);
    // The hot wallet pays gas for sweeps and withdrawals ...
    if ((await provider.getBalance(hotWallet)) < parseEther('10')) {
      await (await owner.sendTransaction({ to: hotWallet, value: parseEther('100') })).wait();
    }
    // ... and holds a float of every test token, from which withdrawals are paid (sweeps go to the treasury).
    for (const [symbol, token] of Object.entries(tokens)) {
      const float = 1_000_000n * 10n ** BigInt(localTestTokens(chain.network)[symbol]?.decimals ?? 0);
      const held = (await new Contract(token, ERC20_ABI, provider).getFunction('balanceOf')(hotWallet)) as bigint;
      if (held < float / 2n) await mintTestToken(owner, token, hotWallet, float - held);
    }
    return {
      factory: factory.factory,
      implementation: factory.implementation,
      batchPayout: batchPayout.address,
      subscriptionCollector: subscriptionCollector.address,
      hotWallet,
      owner: owner.address,
      treasury: treasury.address,
      tokens,
    };
  } finally {
    provider.destroy();
  }
}

/**
 * CONTRACT DEPLOYMENT CALL SITE (the only one): the gateway's contracts on every local EVM chain, in parallel.
 * The factory lands at the same address on each (the deterministic deployer); a chain where it does not is an
 * error.
 */
export async function deployContracts(chains: readonly LocalEvmChain[], kms: KMSClient, signingKeyId: string, log: Logger): Promise<LocalContracts> {
  const deployments = await Promise.all(chains.map((chain) => deployOnChain(chain, kms, signingKeyId)));
  const first = deployments[0];
  if (!first) throw new Error('no local EVM chain to deploy on');
  const networks: Partial<Record<NetworkCode, LocalChainContracts>> = {};
  chains.forEach((chain, i) => {
    const d = deployments[i] as ChainDeployment;
    if (d.factory !== first.factory) throw new Error(`the forwarder factory is at ${d.factory} on ${chain.network}, not ${first.factory}`);
    if (d.batchPayout !== first.batchPayout) throw new Error(`the batch payout contract is at ${d.batchPayout} on ${chain.network}, not ${first.batchPayout}`);
    if (d.subscriptionCollector !== first.subscriptionCollector)
      throw new Error(`the subscription collector is at ${d.subscriptionCollector} on ${chain.network}, not ${first.subscriptionCollector}`);
    networks[chain.network] = { chainId: chain.chainId, tokens: d.tokens };
  });
  log.info(
    `contracts: factory ${first.factory}, batch payout ${first.batchPayout}, subscription collector ${first.subscriptionCollector} on ${chains.map((c) => c.network).join(', ')}; tokens ${chains
      .map((c) => `${c.network} ${Object.keys(networks[c.network]?.tokens ?? {}).join('/') || '-'}`)
      .join(', ')}`,
  );
  return {
    forwarderFactory: first.factory,
    forwarderImplementation: first.implementation,
    batchPayout: first.batchPayout,
    subscriptionCollector: first.subscriptionCollector,
    hotWallet: first.hotWallet,
    owner: first.owner,
    treasury: first.treasury,
    networks,
    tokens: networks.ETH?.tokens ?? {},
  };
}

/**
 * What the handlers learn of the local EVM chains: `EVM_RPC_URLS` for every network, and once the contracts
 * are deployed, `FORWARDER_FACTORIES` for every network, `WITHDRAWAL_BATCH_CONTRACT`, `SUBSCRIPTION_COLLECTOR_CONTRACT` and `TOKEN_CONTRACTS` mapping each catalogue currency
 * with a contract to the test token of its network and symbol.
 */
export function evmEnv(chains: readonly LocalEvmChain[], contracts: LocalContracts | undefined): Record<string, string> {
  const env: Record<string, string> = { EVM_RPC_URLS: JSON.stringify(Object.fromEntries(chains.map((c) => [c.network, c.rpcUrl]))) };
  if (!contracts) return env;
  env.FORWARDER_FACTORIES = JSON.stringify(Object.fromEntries(chains.map((c) => [c.network, contracts.forwarderFactory])));
  env.WITHDRAWAL_BATCH_CONTRACT = contracts.batchPayout;
  env.SUBSCRIPTION_COLLECTOR_CONTRACT = contracts.subscriptionCollector;
  const tokens: Record<string, string> = {};
  for (const currency of CURRENCY_LIST) {
    const address = contracts.networks[currency.network]?.tokens[currency.token];
    if (!currency.native && address) tokens[currency.code] = address;
  }
  env.TOKEN_CONTRACTS = JSON.stringify(tokens);
  return env;
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

export async function startLocalTron(hotWallet: string, port: number | undefined, log: Logger): Promise<TronNode> {
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
export function tronEnv(env: Record<string, string>, node: TronNode): void {
  const merged = (key: string, add: Record<string, string>): string => JSON.stringify({ ...(JSON.parse(env[key] ?? '{}') as Record<string, string>), ...add });
  env.TRON_API_URL = node.url;
  env.FORWARDER_FACTORIES = merged('FORWARDER_FACTORIES', { TRX: LOCAL_TRON.factory });
  env.FORWARDER_IMPLEMENTATION_TRX = LOCAL_TRON.implementation;
  env.TOKEN_CONTRACTS = merged('TOKEN_CONTRACTS', { USDTTRC20: LOCAL_TRON.usdt });
}
