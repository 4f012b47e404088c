import { randomUUID } from 'node:crypto';
import { KMSClient } from '@aws-sdk/client-kms';
import { JsonRpcProvider } from 'ethers';
import { config } from '../../config/config.js';
import { NETWORKS } from '../../domain/currencies.js';
import { jsonRpcChain } from '../../chain/evm/scanner.js';
import { KmsSigner } from '../../chain/signer/kms-signer.js';
import { acquireLease, releaseLease } from '../../store/scanner.js';
import { defaultChainTxDeps } from '../chain-tx/runtime.js';
import { rpcUrl } from '../currencies/runtime.js';
import { defaultPaymentsDeps, factoryOf } from './deps.js';
import type { ScanReport } from './scan.js';
import { scanOnce } from './scan.js';
import type { SweepPort } from './settle.js';
import { directFactorySweep } from './sweep-direct.js';
import { engineSweep } from './sweep-engine.js';

/**
 * The chain-scanner worker's loop: per EVM network with an RPC endpoint (`EVM_RPC_URLS`)
 * and a factory, hold the network's lease and scan repeatedly for most of the invocation (EventBridge fires at
 * most once a minute), pausing about a block time between passes. Sweeps go through the chain-tx engine when
 * `PAYMENT_SWEEPS=engine`, else directly through the factory with the KMS hot-wallet signer.
 */
export function scannerNetworks(): { network: string; rpcUrl: string }[] {
  return Object.values(NETWORKS)
    .filter((n) => n.family === 'evm')
    .flatMap((n) => {
      const url = rpcUrl(n.code);
      return url && factoryOf(n.code) ? [{ network: n.code, rpcUrl: url }] : [];
    });
}

let kms: KMSClient | undefined;

function sweepPortFor(rpcUrl: string): SweepPort {
  const cfg = config();
  const keyId = cfg.HOT_WALLET_KEY_ID;
  if (!keyId) throw new Error('HOT_WALLET_KEY_ID is not set: no hot wallet to sweep with');
  kms ??= new KMSClient({ region: config().AWS_REGION, maxAttempts: 3 });
  const provider = new JsonRpcProvider(rpcUrl, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 250 });
  const signer = new KmsSigner(kms, keyId, provider);
  if ((cfg.PAYMENT_SWEEPS ?? (cfg.STAGE === 'local' ? 'direct' : 'engine')) === 'engine') {
    return engineSweep(factoryOf, async () => ({ keyId, address: await signer.getAddress() }), defaultChainTxDeps());
  }
  return directFactorySweep(factoryOf, signer);
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
    scannerNetworks().map(async ({ network, rpcUrl }) => {
      const leaseMs = options.budgetMs + 30_000;
      if (!(await acquireLease(network, owner, new Date(), new Date(Date.now() + leaseMs)))) return;
      const chain = jsonRpcChain(rpcUrl);
      const deps = { chain, sweep: sweepPortFor(rpcUrl), payments: defaultPaymentsDeps() };
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
