/**
 * The chains of the local stack: anvil standing in for Ethereum with the gateway's contracts deployed on it,
 * and the local TRON node with its fixed contract addresses; and what the handlers learn of both (their
 * environment).
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { Contract, JsonRpcProvider, parseEther } from 'ethers';
import { ERC20_ABI } from '../../shared/chain/evm/abi.js';
import { KmsSigner } from '../../shared/chain/signer/kms-signer.js';
import { tronAddressFromBytes } from '../../shared/chain/tron/create2.js';
import { CURRENCY_LIST } from '../../shared/domain/currencies.js';
import { deployTestTokens, ensureForwarderFactory, mintTestToken, TEST_TOKENS } from './dev/deploy.js';
import type { TestTokenSymbol } from './dev/deploy.js';
import type { Logger } from './log.js';
import { startTronNode } from './tron.js';
import type { TronNode } from './tron.js';

/** The local chain stands in for Ethereum mainnet (network code ETH of the catalogue). */
export const LOCAL_EVM_NETWORK = 'ETH';
export const LOCAL_CHAIN_ID = 31337;

export interface AnvilHandle {
  readonly rpcUrl: string;
  close(): Promise<void>;
}

export async function startLocalAnvil(
  port: number | undefined,
  stateFile: string | undefined,
  blockTimeSeconds: number | undefined,
  log: Logger,
): Promise<AnvilHandle> {
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

/**
 * CONTRACT DEPLOYMENT CALL SITE (the only one): deterministic forwarder factory + test tokens on the local chain,
 * through infra/local/dev/deploy.ts. The dev account 0 of anvil deploys and owns; the hot wallet is the KMS
 * signing key's address (funded with ETH for gas and a float of each test token for withdrawals); the treasury
 * is dev account 1. Idempotent: on a persisted
 * chain nothing is deployed again.
 */
export async function deployContracts(rpcUrl: string, kms: KMSClient, signingKeyId: string, log: Logger): Promise<Record<string, unknown>> {
  const provider = new JsonRpcProvider(rpcUrl, LOCAL_CHAIN_ID, { staticNetwork: true, pollingInterval: 250 });
  try {
    const owner = await provider.getSigner(0);
    const treasury = await provider.getSigner(1);
    const hotWallet = await new KmsSigner(kms, signingKeyId, provider).getAddress();
    const factory = await ensureForwarderFactory(owner, {
      owner: owner.address,
      hotWallet,
      treasury: treasury.address,
    });
    const tokens = await deployTestTokens(owner);
    // The hot wallet pays gas for sweeps and withdrawals.
    const minimum = parseEther('10');
    if ((await provider.getBalance(hotWallet)) < minimum) {
      await (await owner.sendTransaction({ to: hotWallet, value: parseEther('100') })).wait();
    }
    // ... and holds a float of every test token, from which withdrawals are paid (sweeps go to the treasury).
    for (const [symbol, token] of Object.entries(tokens)) {
      const float = 1_000_000n * 10n ** BigInt(TEST_TOKENS[symbol as TestTokenSymbol].decimals);
      const held = (await new Contract(token, ERC20_ABI, provider).getFunction('balanceOf')(hotWallet)) as bigint;
      if (held < float / 2n) await mintTestToken(owner, token, hotWallet, float - held);
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
