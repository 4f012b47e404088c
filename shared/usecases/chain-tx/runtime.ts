import { KMSClient } from '@aws-sdk/client-kms';
import { config } from '../../config/config.js';
import { EvmChain, KmsTxSigner, evmProvider } from '../../chain/engine/evm.js';
import type { ChainPort, TronChainPort } from '../../chain/engine/ports.js';
import { KmsTronSigner, TronGridChain } from '../../chain/engine/tron.js';
import { TronGridClient } from '../../chain/tron/grid.js';
import { dynamoChainTxStore } from '../../store/chain-tx.js';
import { rpcUrl } from '../currencies/runtime.js';
import type { HotWalletDeps } from '../monitoring/hot-wallet.js';
import type { ChainTxDeps } from './deps.js';
import { isTronNetwork } from './tron.js';

/**
 * The engine wired from configuration: DynamoDB store, one JSON-RPC provider per network (`EVM_RPC_URLS`),
 * one KMS client (`AWS_ENDPOINT_URL_KMS` points it at the local KMS server). Built once per process.
 */
let cached: ChainTxDeps | undefined;
let kmsSigner: KmsTxSigner | undefined;
let hotWallet: Promise<{ keyId: string; address: string }> | undefined;

export function defaultChainTxDeps(): ChainTxDeps {
  if (cached) return cached;
  const c = config();
  const kms = new KMSClient({ region: c.AWS_REGION, maxAttempts: 3 });
  const chains = new Map<string, ChainPort>();
  const signer = new KmsTxSigner(kms);
  kmsSigner = signer;
  const tronUrl = c.TRON_API_URL;
  let tronChain: TronChainPort | undefined;
  cached = {
    store: dynamoChainTxStore,
    chain(network: string): ChainPort {
      let chain = chains.get(network);
      if (!chain) {
        const url = rpcUrl(network);
        if (!url) throw new Error(`No RPC endpoint for network ${network} in EVM_RPC_URLS`);
        chain = new EvmChain(evmProvider(url));
        chains.set(network, chain);
      }
      return chain;
    },
    signer,
    ...(tronUrl
      ? {
          tron: {
            chain(): TronChainPort {
              tronChain ??= new TronGridChain(new TronGridClient(tronUrl, c.TRON_API_KEY ? { apiKey: c.TRON_API_KEY } : {}));
              return tronChain;
            },
            signer: new KmsTronSigner(signer),
            expirationSeconds: c.TRON_TX_EXPIRATION_SECONDS,
            feeLimit: c.TRON_FEE_LIMIT_SUN,
          },
        }
      : {}),
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

/** The networks the follower follows: every network with an endpoint in `EVM_RPC_URLS`, and TRX with `TRON_API_URL`. */
export function chainTxNetworks(): string[] {
  const c = config();
  return [...Object.keys(c.EVM_RPC_URLS), ...(c.TRON_API_URL ? ['TRX'] : [])];
}

/**
 * The deployment's hot wallet: its KMS key (`HOT_WALLET_KEY_ID`) and that key's address (the same 20 bytes
 * on EVM networks and inside TRON's VM). One GetPublicKey per process; a failure is asked again next time.
 */
export function defaultHotWallet(): Promise<{ keyId: string; address: string }> {
  const keyId = config().HOT_WALLET_KEY_ID;
  if (!keyId) return Promise.reject(new Error('HOT_WALLET_KEY_ID is not set: no hot wallet to sign with'));
  defaultChainTxDeps();
  const signer = kmsSigner;
  if (!signer) return Promise.reject(new Error('No KMS signer'));
  hotWallet ??= signer
    .signerFor(keyId)
    .getAddress()
    .then((address) => ({ keyId, address }))
    .catch((error: unknown) => {
      hotWallet = undefined;
      throw error;
    });
  return hotWallet;
}

/** What the hot-wallet metrics read: the wallet's address and its native balance on EVM networks and TRON. */
export function defaultHotWalletDeps(): HotWalletDeps {
  const deps = defaultChainTxDeps();
  return {
    address: async () => (await defaultHotWallet()).address,
    balance: (network, address) => (isTronNetwork(network) && deps.tron ? deps.tron.chain(network).balance(address) : deps.chain(network).balance(address)),
    minimums: config().HOT_WALLET_MIN_BALANCE,
  };
}

/** Forget the wiring (tests, local stack after a configuration change). */
export function resetChainTxDeps(): void {
  cached = undefined;
  kmsSigner = undefined;
  hotWallet = undefined;
}
