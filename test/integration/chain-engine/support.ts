import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { JsonRpcProvider, toBeHex } from 'ethers';
import { startAnvil } from '../../../infra/local/anvil.js';
import type { AnvilInstance } from '../../../infra/local/anvil.js';
import { startKmsServer } from '../../../infra/local/kms/server.js';
import type { KmsServer } from '../../../infra/local/kms/server.js';
import { EvmChain, KmsTxSigner } from '../../../shared/chain/engine/evm.js';
import type { CrashPoint } from '../../../shared/usecases/chain-tx/ports.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import { dynamoChainTxStore } from '../../../shared/store/chain-tx.js';
import type { ChainTxDeps, ChainTxSettings } from '../../../shared/usecases/chain-tx/ports.js';
import { startTestTable } from '../../support/dynamodb.js';
import type { TestTable } from '../../support/dynamodb.js';

export const NETWORK = 'anvil';

export interface EngineEnv {
  readonly anvil: AnvilInstance;
  readonly kmsServer: KmsServer;
  readonly table: TestTable;
  readonly kms: KMSClient;
  readonly provider: JsonRpcProvider;
  /** A fresh KMS wallet, funded with `eth` ETH (0 leaves it empty). */
  wallet(eth?: bigint): Promise<{ keyId: string; address: string }>;
  /** Engine dependencies: a fresh provider and signer (one "processor"), a movable clock, optional crash hook. */
  deps(options?: { crash?: (point: CrashPoint, tx: ChainTx) => void | Promise<void>; settings?: Partial<ChainTxSettings>; kms?: KMSClient }): ChainTxDeps;
  /** Moves the engine clock forward. */
  advance(seconds: number): void;
  stop(): Promise<void>;
}

export const rpcProvider = (url: string): JsonRpcProvider =>
  new JsonRpcProvider(url, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 20 });

export async function startEngineEnv(): Promise<EngineEnv> {
  const table = await startTestTable();
  const anvil = await startAnvil();
  const kmsServer = await startKmsServer({ host: '127.0.0.1', port: 0 });
  const kms = new KMSClient({ endpoint: kmsServer.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  const provider = rpcProvider(anvil.rpcUrl);
  let offsetMs = 0;
  const providers: JsonRpcProvider[] = [provider];
  return {
    anvil,
    kmsServer,
    table,
    kms,
    provider,
    async wallet(eth = 10n) {
      const out = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
      const keyId = out.KeyMetadata?.KeyId;
      if (!keyId) throw new Error('no key id');
      const address = await new KmsTxSigner(kms).signerFor(keyId).getAddress();
      if (eth > 0n) await provider.send('anvil_setBalance', [address, toBeHex(eth * 10n ** 18n)]);
      return { keyId, address };
    },
    deps(options = {}) {
      const p = rpcProvider(anvil.rpcUrl);
      providers.push(p);
      const chain = new EvmChain(p);
      return {
        store: dynamoChainTxStore,
        chain: (network: string) => {
          if (network !== NETWORK) throw new Error(`unknown network ${network}`);
          return chain;
        },
        signer: new KmsTxSigner(options.kms ?? kms),
        clock: () => new Date(Date.now() + offsetMs),
        settings: {
          confirmations: 1,
          bumpAfterSeconds: 60,
          caps: { maxFeePerGas: 500n * 10n ** 9n, maxPriorityFeePerGas: 50n * 10n ** 9n },
          retryQueuedAfterSeconds: 0,
          ...options.settings,
        },
        crash: options.crash,
      };
    },
    advance(seconds: number) {
      offsetMs += seconds * 1000;
    },
    async stop() {
      for (const p of providers) p.destroy();
      kms.destroy();
      await kmsServer.close();
      await anvil.close();
      await table.stop();
    },
  };
}

/** A seeded PRNG (mulberry32), so a failing run can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class SimulatedCrash extends Error {
  constructor(point: CrashPoint) {
    super(`simulated crash at ${point}`);
    this.name = 'SimulatedCrash';
  }
}
