import { randomUUID } from 'node:crypto';
import { KMSClient } from '@aws-sdk/client-kms';
import { JsonRpcProvider } from 'ethers';
import { config } from '../../config/config.js';
import { NETWORKS } from '../../domain/currencies.js';
import type { EvmChainPort } from '../../chain/evm/scanner.js';
import { jsonRpcChain } from '../../chain/evm/scanner.js';
import { TronGridClient } from '../../chain/tron/grid.js';
import { tronScanChain } from '../../chain/tron/scanner.js';
import { KmsSigner } from '../../chain/signer/kms-signer.js';
import { acquireLease, releaseLease } from '../../store/scanner.js';
import { defaultChainTxDeps, defaultHotWallet } from '../chain-tx/runtime.js';
import { rpcUrl } from '../currencies/runtime.js';
import { defaultPaymentsDeps, factoryOf } from './deps.js';
import type { ScanReport } from './scan.js';
import { scanOnce } from './scan.js';
import type { SweepPort } from './settle.js';
import { directFactorySweep } from './sweep-direct.js';
import { engineSweep } from './sweep-engine.js';

/**
 * The chain-scanner worker's loop: per network with an endpoint (EVM: `EVM_RPC_URLS`; TRON: `TRON_API_URL`)
 * and a factory, hold the network's lease and scan repeatedly for most of the invocation (EventBridge fires at
 * most once a minute), pausing about a block time between passes. Sweeps go through the chain-tx engine when
 * `PAYMENT_SWEEPS=engine` (always on TRON), else directly through the factory with the KMS hot-wallet signer.
 */
export interface ScannedNetwork {
  readonly network: string;
  readonly family: 'evm' | 'tron';
  readonly url: string;
}

export function scannerNetworks(): ScannedNetwork[] {
  const tronUrl = config().TRON_API_URL;
  return Object.values(NETWORKS).flatMap((n): ScannedNetwork[] => {
    if (!factoryOf(n.code)) return [];
    if (n.family === 'evm') {
      const url = rpcUrl(n.code);
      return url ? [{ network: n.code, family: 'evm', url }] : [];
    }
    return n.family === 'tron' && tronUrl ? [{ network: n.code, family: 'tron', url: tronUrl }] : [];
  });
}

function scanChainFor(n: ScannedNetwork): EvmChainPort {
  if (n.family === 'evm') return jsonRpcChain(n.url);
  const apiKey = config().TRON_API_KEY;
  return tronScanChain(new TronGridClient(n.url, apiKey ? { apiKey } : {}));
}

let kms: KMSClient | undefined;

function sweepPortFor(n: ScannedNetwork): SweepPort {
  const cfg = config();
  const keyId = cfg.HOT_WALLET_KEY_ID;
  if (!keyId) throw new Error('HOT_WALLET_KEY_ID is not set: no hot wallet to sweep with');
  // TRON has no direct path: its transactions are built and signed by the engine only.
  if (n.family === 'tron' || (cfg.PAYMENT_SWEEPS ?? (cfg.STAGE === 'local' ? 'direct' : 'engine')) === 'engine') {
    return engineSweep(factoryOf, defaultHotWallet, defaultChainTxDeps());
  }
  kms ??= new KMSClient({ region: cfg.AWS_REGION, maxAttempts: 3 });
  const provider = new JsonRpcProvider(n.url, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 250 });
  return directFactorySweep(factoryOf, new KmsSigner(kms, keyId, provider));
}

export interface LoopOptions {
  /** Stop starting passes after this many milliseconds. */
  readonly budgetMs: number;
  readonly pauseMs?: number;
}

export async function runScanners(options: LoopOptions): Promise<ScanReport[]> {
  const owner = randomUUID();
  const started = Date.now();
  const reports: ScanReport[] = [];
  await Promise.all(
    scannerNetworks().map(async (n) => {
      const { network } = n;
      const leaseMs = options.budgetMs + 30_000;
      if (!(await acquireLease(network, owner, new Date(), new Date(Date.now() + leaseMs)))) return;
      const chain = scanChainFor(n);
      const deps = { chain, sweep: sweepPortFor(n), payments: defaultPaymentsDeps() };
      const pause = options.pauseMs ?? Math.min(NETWORKS[network as keyof typeof NETWORKS].blockTimeMs, 2_000);
      try {
        do {
          reports.push(await scanOnce(network, deps));
          if (Date.now() - started + pause >= options.budgetMs) break;
          await new Promise((r) => setTimeout(r, pause));
        } while (Date.now() - started < options.budgetMs);
      } finally {
        chain.close();
        await releaseLease(network, owner);
      }
    }),
  );
  return reports;
}
