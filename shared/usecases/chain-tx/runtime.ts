import { KMSClient } from '@aws-sdk/client-kms';
import { config } from '../../config/config.js';
import { EvmChain, KmsTxSigner, evmProvider } from '../../chain/engine/evm.js';
import type { ChainPort } from '../../chain/engine/ports.js';
import { dynamoChainTxStore } from '../../store/chain-tx.js';
import type { ChainTxDeps } from './deps.js';

/**
 * The engine wired from configuration: DynamoDB store, one JSON-RPC provider per network (`EVM_RPC_URLS`, or
 * `RPC_URL_<network>` as the local stack sets it),
 * one KMS client (`AWS_ENDPOINT_URL_KMS` points it at the local KMS server). Built once per process.
 */
let cached: ChainTxDeps | undefined;

export function defaultChainTxDeps(): ChainTxDeps {
  if (cached) return cached;
  const c = config();
  const kms = new KMSClient({ region: c.AWS_REGION, maxAttempts: 3 });
  const chains = new Map<string, ChainPort>();
  cached = {
    store: dynamoChainTxStore,
    chain(network: string): ChainPort {
      let chain = chains.get(network);
      if (!chain) {
        const url = rpcUrlOf(network);
        if (!url) throw new Error(`No RPC endpoint for network ${network} (EVM_RPC_URLS or RPC_URL_${network})`);
        chain = new EvmChain(evmProvider(url));
        chains.set(network, chain);
      }
      return chain;
    },
    signer: new KmsTxSigner(kms),
    clock: () => new Date(),
    settings: {
      confirmations: c.CHAIN_TX_CONFIRMATIONS,
      bumpAfterSeconds: c.CHAIN_TX_BUMP_AFTER_SECONDS,
      caps: { maxFeePerGas: c.CHAIN_TX_MAX_FEE_PER_GAS_WEI, maxPriorityFeePerGas: c.CHAIN_TX_MAX_PRIORITY_FEE_WEI },
      retryQueuedAfterSeconds: c.CHAIN_TX_RETRY_QUEUED_AFTER_SECONDS,
    },
  };
  return cached;
}

const RPC_URL_ENV = /^RPC_URL_([A-Za-z0-9_-]+)$/;

/** A network's endpoint: `RPC_URL_<network>` (what the local stack sets, as the scanner reads it), else `EVM_RPC_URLS`. */
function rpcUrlOf(network: string): string | undefined {
  return process.env[`RPC_URL_${network}`] ?? config().EVM_RPC_URLS[network];
}

/** The networks the follower follows: every network with an endpoint. */
export function chainTxNetworks(): string[] {
  const fromEnv = Object.keys(process.env).flatMap((name) => {
    const match = RPC_URL_ENV.exec(name);
    return match?.[1] !== undefined && process.env[name] ? [match[1]] : [];
  });
  return [...new Set([...Object.keys(config().EVM_RPC_URLS), ...fromEnv])];
}

/** Forget the wiring (tests, local stack after a configuration change). */
export function resetChainTxDeps(): void {
  cached = undefined;
}
