/**
 * KMS on the local stack: the KMS-compatible endpoint (infra/local/kms) and the gateway's keys (stored secrets,
 * hot-wallet signing, the Solana fee payer), created once and reused across restarts while the endpoint still knows
 * them.
 */
import { CreateAliasCommand, CreateKeyCommand, DescribeKeyCommand } from '@aws-sdk/client-kms';
import type { KMSClient } from '@aws-sdk/client-kms';
import { join } from 'node:path';
import { readJson, writeJson } from './json-file.js';
import type { Logger } from './log.js';

export interface KmsHandle {
  readonly url: string;
  close(): Promise<void>;
}

export interface LocalKeys {
  secretsKeyId: string;
  signingKeyId: string;
  /** Ed25519 (`ECC_NIST_EDWARDS25519`): pays the fees of custody's SOL withdrawals. */
  solanaFeePayerKeyId: string;
}

/** Reuses the keys recorded in `<dataDir>/keys.json` if KMS still has them; creates (and records) them otherwise. */
export async function ensureKeys(kms: KMSClient, dataDir: string | null, log: Logger): Promise<LocalKeys> {
  const file = dataDir ? join(dataDir, 'keys.json') : undefined;
  const recorded = file ? await readJson(file) : undefined;
  /** The recorded key id if KMS still knows it. */
  const known = async (keyId: unknown): Promise<string | undefined> => {
    if (typeof keyId !== 'string' || keyId === '') return undefined;
    try {
      return (await kms.send(new DescribeKeyCommand({ KeyId: keyId }))).KeyMetadata?.KeyId ? keyId : undefined;
    } catch {
      return undefined;
    }
  };
  const old = typeof recorded === 'object' && recorded !== null ? (recorded as Partial<Record<keyof LocalKeys, unknown>>) : {};
  const specs = {
    secrets: { KeySpec: 'SYMMETRIC_DEFAULT', KeyUsage: 'ENCRYPT_DECRYPT', Description: 'Payment gateway (local) stored-secrets key' },
    'hot-wallet': { KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY', Description: 'Payment gateway (local) hot-wallet signing key' },
    'solana-fee-payer': { KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY', Description: 'Payment gateway (local) Solana fee payer key' },
  } as const;
  const create = async (kind: keyof typeof specs): Promise<string> => {
    const out = await kms.send(new CreateKeyCommand(specs[kind]));
    const keyId = out.KeyMetadata?.KeyId;
    if (!keyId) throw new Error(`KMS CreateKey (${kind}) returned no key id`);
    // Same alias names as CDK (infra/cdk/constructs/keys.ts); best effort.
    await kms.send(new CreateAliasCommand({ AliasName: `alias/payment-gateway/local/${kind}`, TargetKeyId: keyId })).catch(() => undefined);
    log.info(`kms: created the ${kind} key ${keyId}`);
    return keyId;
  };
  const keys: LocalKeys = {
    secretsKeyId: (await known(old.secretsKeyId)) ?? (await create('secrets')),
    signingKeyId: (await known(old.signingKeyId)) ?? (await create('hot-wallet')),
    solanaFeePayerKeyId: (await known(old.solanaFeePayerKeyId)) ?? (await create('solana-fee-payer')),
  };
  const changed = keys.secretsKeyId !== old.secretsKeyId || keys.signingKeyId !== old.signingKeyId || keys.solanaFeePayerKeyId !== old.solanaFeePayerKeyId;
  if (file && changed) await writeJson(file, keys);
  return keys;
}

export async function startKms(port: number, dataDir: string | undefined, region: string, log: Logger): Promise<KmsHandle> {
  const { startKmsServer } = await import('./kms/server.js');
  const server = await startKmsServer({ host: '127.0.0.1', port, ...(dataDir ? { dataDir } : {}), region });
  log.info(`kms: KMS on ${server.url}${dataDir ? ` (keys in ${dataDir})` : ' (in memory)'}`);
  return server;
}
