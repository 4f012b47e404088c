import { KMSClient } from '@aws-sdk/client-kms';
import { JsonRpcProvider } from 'ethers';
import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { jsonRpcChain } from '../chain/evm/scanner.js';
import { KmsSigner } from '../chain/signer/kms-signer.js';
import { TronGridClient } from '../chain/tron/grid.js';
import { tronScanChain } from '../chain/tron/scanner.js';
import { NETWORKS } from '../domain/currencies.js';
import type { ScannedNetwork, ScannersDeps } from '../usecases/payments/run-scanners.js';
import type { SweepPort } from '../usecases/payments/settle.js';
import { directFactorySweep } from '../usecases/payments/sweep-direct.js';
import { engineSweep } from '../usecases/payments/sweep-engine.js';
import type { ChainTxRuntime } from './chain-tx.js';
import { chainTxRuntime } from './chain-tx.js';
import { rpcUrl, servedNetworks } from './currencies.js';
import { factoryOf, scannerRuntime } from './payments.js';

/**
 * The chain-scanner worker wired from configuration: every network this deployment takes payments on
 * (`servedNetworks`: an endpoint, EVM `EVM_RPC_URLS` or TRON `TRON_API_URL`, and a factory) is scanned. Sweeps go through the chain-tx engine when `PAYMENT_SWEEPS=engine`
 * (the default outside the local stack, and always on TRON), else directly through the factory with the KMS
 * hot-wallet signer.
 */
export function scannedNetworks(cfg: Config): ScannedNetwork[] {
  const served = servedNetworks(cfg).payments;
  return Object.values(NETWORKS).flatMap((n): ScannedNetwork[] => {
    if (!served.has(n.code)) return [];
    if (n.family === 'evm') return [{ network: n.code, family: 'evm', url: rpcUrl(n.code, cfg) ?? '' }];
    return n.family === 'tron' && cfg.TRON_API_URL ? [{ network: n.code, family: 'tron', url: cfg.TRON_API_URL }] : [];
  });
}

export function scannersRuntime(cfg: Config = config(), chainTx: ChainTxRuntime = chainTxRuntime(cfg)): ScannersDeps {
  let kms: KMSClient | undefined;
  const factories = (network: string) => factoryOf(cfg, network);
  const sweepFor = (n: ScannedNetwork): SweepPort => {
    const keyId = cfg.HOT_WALLET_KEY_ID;
    if (!keyId) throw new Error('HOT_WALLET_KEY_ID is not set: no hot wallet to sweep with');
    // TRON has no direct path: its transactions are built and signed by the engine only.
    if (n.family === 'tron' || (cfg.PAYMENT_SWEEPS ?? (cfg.STAGE === 'local' ? 'direct' : 'engine')) === 'engine') {
      return engineSweep(factories, chainTx.hotWallet, chainTx.deps, n.family === 'tron' ? cfg.TRON_SWEEP_BATCH_MAX_SALTS : cfg.SWEEP_BATCH_MAX_SALTS);
    }
    kms ??= new KMSClient({ region: cfg.AWS_REGION, maxAttempts: 3 });
    const provider = new JsonRpcProvider(n.url, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 250 });
    return directFactorySweep(factories, new KmsSigner(kms, keyId, provider), cfg.SWEEP_BATCH_MAX_SALTS);
  };
  return {
    ...scannerRuntime(cfg),
    networks: scannedNetworks(cfg),
    chainFor: (n) =>
      n.family === 'evm' ? jsonRpcChain(n.url) : tronScanChain(new TronGridClient(n.url, cfg.TRON_API_KEY ? { apiKey: cfg.TRON_API_KEY } : {})),
    sweepFor,
  };
}
