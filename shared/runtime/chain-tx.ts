import { KMSClient } from '@aws-sdk/client-kms';
import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { KmsTxSigner, evmChainsOf } from '../chain/engine/evm.js';
import type { ChainPort, TronChainPort } from '../usecases/chain-tx/ports.js';
import { KmsTronSigner, TronGridChain } from '../chain/engine/tron.js';
import { BtcBatchBuilder, EsploraBtcChain, kmsBtcSigners } from '../chain/engine/btc.js';
import { EsploraClient } from '../chain/btc/esplora.js';
import { findCurrency } from '../domain/currencies.js';
import { dynamoHotCoins, MAX_COINS_PER_RESERVATION } from '../store/btc-coins.js';
import type { BtcChainPort, BtcEngineDeps } from '../usecases/chain-tx/ports.js';
import { TronGridClient } from '../chain/tron/grid.js';
import { dynamoChainTxStore } from '../store/chain-tx.js';
import { systemClock } from '../domain/clock.js';
import type { ChainTxDeps } from '../usecases/chain-tx/ports.js';
import { isTronNetwork } from '../usecases/chain-tx/tron.js';
import type { HotWalletDeps } from '../usecases/monitoring/hot-wallet.js';
import { traced } from '../observability/client-tracing.js';

/**
 * The chain-transaction engine wired from configuration: DynamoDB store, one JSON-RPC provider per network
 * (`EVM_RPC_URLS`, built on first use), one KMS client (`AWS_ENDPOINT_URL_KMS` points it at the local KMS
 * server), and the deployment's hot wallet. A Lambda builds it once at module scope.
 */
export interface HotWallet {
  readonly keyId: string;
  readonly address: string;
}

export interface ChainTxRuntime {
  readonly deps: ChainTxDeps;
  /** The networks the follower follows: every network in `EVM_RPC_URLS`, TRX with `TRON_API_URL`, BTC with `BTC_API_URL`. */
  readonly networks: readonly string[];
  /**
   * The hot wallet: its KMS key (`HOT_WALLET_KEY_ID`) and that key's address (the same 20 bytes on EVM networks and
   * inside TRON's VM). One GetPublicKey per runtime; a failure is asked again next time.
   */
  hotWallet(): Promise<HotWallet>;
  /** What the hot-wallet metrics read: its address and native balance on EVM networks and TRON. */
  readonly hotWalletDeps: HotWalletDeps;
}

export function chainTxRuntime(cfg: Config = config()): ChainTxRuntime {
  const kms = traced(new KMSClient({ region: cfg.AWS_REGION, maxAttempts: 3 }));
  const signer = new KmsTxSigner(kms);
  const evmChainOf: (network: string) => ChainPort = evmChainsOf(cfg.EVM_RPC_URLS);
  const tronUrl = cfg.TRON_API_URL;
  let tronChain: TronChainPort | undefined;
  const btcUrl = cfg.BTC_API_URL;
  let btcChain: BtcChainPort | undefined;
  const btc: BtcEngineDeps | undefined = btcUrl
    ? {
        chain(): BtcChainPort {
          btcChain ??= new EsploraBtcChain(new EsploraClient(btcUrl), { targetBlocks: cfg.BTC_FEE_TARGET_BLOCKS });
          return btcChain;
        },
        builder: new BtcBatchBuilder(kmsBtcSigners(kms), cfg.BTC_NETWORK),
        coins: dynamoHotCoins,
        confirmations: findCurrency('BTC')?.confirmations ?? 2,
        replaceAfterBlocks: cfg.BTC_REPLACE_AFTER_BLOCKS,
        maxCoins: MAX_COINS_PER_RESERVATION,
      }
    : undefined;
  const deps: ChainTxDeps = {
    store: dynamoChainTxStore,
    chain: evmChainOf,
    signer,
    ...(tronUrl
      ? {
          tron: {
            chain(): TronChainPort {
              tronChain ??= new TronGridChain(new TronGridClient(tronUrl, cfg.TRON_API_KEY ? { apiKey: cfg.TRON_API_KEY } : {}));
              return tronChain;
            },
            signer: new KmsTronSigner(signer),
            expirationSeconds: cfg.TRON_TX_EXPIRATION_SECONDS,
            feeLimit: cfg.TRON_FEE_LIMIT_SUN,
          },
        }
      : {}),
    ...(btc ? { btc } : {}),
    clock: () => systemClock.now(),
    settings: {
      confirmations: cfg.CHAIN_TX_CONFIRMATIONS,
      bumpAfterSeconds: cfg.CHAIN_TX_BUMP_AFTER_SECONDS,
      caps: { maxFeePerGas: cfg.CHAIN_TX_MAX_FEE_PER_GAS_WEI, maxPriorityFeePerGas: cfg.CHAIN_TX_MAX_PRIORITY_FEE_WEI },
      retryQueuedAfterSeconds: cfg.CHAIN_TX_RETRY_QUEUED_AFTER_SECONDS,
    },
  };
  let wallet: Promise<HotWallet> | undefined;
  const hotWallet = (): Promise<HotWallet> => {
    const keyId = cfg.HOT_WALLET_KEY_ID;
    if (!keyId) return Promise.reject(new Error('HOT_WALLET_KEY_ID is not set: no hot wallet to sign with'));
    wallet ??= signer
      .signerFor(keyId)
      .getAddress()
      .then((address) => ({ keyId, address }))
      .catch((error: unknown) => {
        wallet = undefined;
        throw error;
      });
    return wallet;
  };
  return {
    deps,
    networks: [...Object.keys(cfg.EVM_RPC_URLS), ...(tronUrl ? ['TRX'] : []), ...(btcUrl ? ['BTC'] : [])],
    hotWallet,
    hotWalletDeps: {
      address: async () => (await hotWallet()).address,
      balance: (network, address) => (isTronNetwork(network) && deps.tron ? deps.tron.chain(network).balance(address) : deps.chain(network).balance(address)),
      minimums: cfg.HOT_WALLET_MIN_BALANCE,
    },
  };
}
