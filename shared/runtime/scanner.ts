import { networkWatching } from '../store/scanner.js';
import { KMSClient } from '@aws-sdk/client-kms';
import { JsonRpcProvider } from 'ethers';
import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { evmRpcDepositSource } from '../chain/evm/deposit-source.js';
import { directFactorySweep } from '../chain/evm/sweep-direct.js';
import { KmsSigner } from '../chain/signer/kms-signer.js';
import { TronGridClient } from '../chain/tron/grid.js';
import { btcDepositSource } from '../chain/btc/deposit-source.js';
import { EsploraClient } from '../chain/btc/esplora.js';
import { dynamoHotCoins } from '../store/btc-coins.js';
import { dynamoPayments } from '../store/payments.js';
import { coinSweep } from '../usecases/payments/sweep-coins.js';
import { tronDepositSource } from '../chain/tron/deposit-source.js';
import { NETWORKS } from '../domain/currencies.js';
import type { DepositSource } from '../usecases/deposits/ports.js';
import type { ScannedNetwork, ScannersDeps } from '../usecases/scanner/run-scanners.js';
import type { SweepPort } from '../usecases/payments/ports.js';
import { engineSweep } from '../usecases/payments/sweep-engine.js';
import { factoryCalls } from '../chain/evm/factory-calls.js';
import type { ChainTxRuntime } from './chain-tx.js';
import { chainTxRuntime } from './chain-tx.js';
import { rpcUrl, servedNetworks } from './currencies.js';
import { factoryOf } from './deposit-addresses.js';
import { scannerRuntime } from './payments.js';
import { excessRefundsRuntime } from './refunds.js';
import { traced } from '../observability/client-tracing.js';
import { linkCompletionsRuntime } from './payment-links.js';

/**
 * The chain-scanner worker wired from configuration: every network this deployment takes payments on
 * (`servedNetworks`: an endpoint, EVM `EVM_RPC_URLS` or TRON `TRON_API_URL`, and a factory; Bitcoin `BTC_API_URL`
 * and the hot wallet key) is scanned. Sweeps go through the chain-tx engine when `PAYMENT_SWEEPS=engine`
 * (the default outside the local stack, and always on TRON), else directly through the factory with the KMS
 * hot-wallet signer.
 */
/**
 * The chain families the scanner reads, each through its DepositSource adapter (shared/chain/<family>/deposit-source.ts):
 * the endpoint a network of the family is read at (undefined: not configured, the network is not scanned) and
 * the adapter over it. A new family is one entry here and its adapter; the scan and the use cases stay as they are.
 */
export const SCANNED_FAMILIES: Readonly<
  Record<string, { endpoint(network: string, cfg: Config): string | undefined; source(url: string, cfg: Config): DepositSource }>
> = {
  evm: { endpoint: (network, cfg) => rpcUrl(network, cfg) ?? '', source: (url) => evmRpcDepositSource(url) },
  tron: {
    endpoint: (_network, cfg) => cfg.TRON_API_URL || undefined,
    source: (url, cfg) => tronDepositSource(new TronGridClient(url, cfg.TRON_API_KEY ? { apiKey: cfg.TRON_API_KEY } : {})),
  },
  btc: { endpoint: (_network, cfg) => cfg.BTC_API_URL || undefined, source: (url, cfg) => btcDepositSource(new EsploraClient(url), cfg.BTC_NETWORK) },
};

export function scannedNetworks(cfg: Config): ScannedNetwork[] {
  const served = servedNetworks(cfg).payments;
  return Object.values(NETWORKS).flatMap((n): ScannedNetwork[] => {
    const url = served.has(n.code) ? SCANNED_FAMILIES[n.family]?.endpoint(n.code, cfg) : undefined;
    return url === undefined ? [] : [{ network: n.code, family: n.family, url }];
  });
}

export function scannersRuntime(cfg: Config = config(), chainTx: ChainTxRuntime = chainTxRuntime(cfg)): ScannersDeps {
  let kms: KMSClient | undefined;
  const factories = (network: string) => factoryOf(cfg, network);
  const sweepFor = (n: ScannedNetwork): SweepPort => {
    const keyId = cfg.HOT_WALLET_KEY_ID;
    if (!keyId) throw new Error('HOT_WALLET_KEY_ID is not set: no hot wallet to sweep with');
    // Bitcoin: no sweep, a deposit is already the hot wallet's coin (recorded as such when its payment settles).
    if (n.family === 'btc') return coinSweep({ payments: dynamoPayments, coins: dynamoHotCoins });
    // TRON has no direct path: its transactions are built and signed by the engine only.
    if (n.family === 'tron' || (cfg.PAYMENT_SWEEPS ?? (cfg.STAGE === 'local' ? 'direct' : 'engine')) === 'engine') {
      return engineSweep({
        factoryOf: factories,
        wallet: chainTx.hotWallet,
        engine: chainTx.deps,
        calls: factoryCalls,
        maxSalts: n.family === 'tron' ? cfg.TRON_SWEEP_BATCH_MAX_SALTS : cfg.SWEEP_BATCH_MAX_SALTS,
      });
    }
    kms ??= traced(new KMSClient({ region: cfg.AWS_REGION, maxAttempts: 3 }));
    const provider = new JsonRpcProvider(n.url, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 250 });
    return directFactorySweep(factories, new KmsSigner(kms, keyId, provider), cfg.SWEEP_BATCH_MAX_SALTS);
  };
  return {
    ...scannerRuntime(cfg),
    excessRefund: excessRefundsRuntime(cfg),
    linkCompletion: linkCompletionsRuntime(),
    networks: scannedNetworks(cfg),
    mempoolBudget: cfg.BTC_MEMPOOL_LOOKUPS_PER_PASS,
    watching: networkWatching,
    sourceFor(n) {
      const family = SCANNED_FAMILIES[n.family];
      if (!family) throw new Error(`No deposit source for the ${n.family} family`);
      return family.source(n.url, cfg);
    },
    sweepFor,
  };
}
