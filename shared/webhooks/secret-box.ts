import type { KMSClient } from '@aws-sdk/client-kms';
import type { SecretBox } from '../usecases/webhooks/ports.js';
import { traced } from '../observability/client-tracing.js';

/**
 * Webhook secrets at rest: encrypted with the KMS key `SECRETS_KEY_ID` (the local stack's KMS endpoint through
 * `AWS_ENDPOINT_URL_KMS`), bound to the tenant by the encryption context. Decrypted secrets are cached in
 * memory for a few minutes, so a busy delivery worker does not call KMS per attempt. The KMS client module is loaded
 * with the first secret stored or read: the Lambdas that hold a box (the user API, webhook delivery) start without it.
 */
export interface KmsSecretBoxOptions {
  readonly region: string;
  /** The key; without it secrets cannot be stored (decrypting still needs none: the ciphertext names its key). */
  readonly keyId: string | undefined;
}

const CACHE_MS = 5 * 60 * 1000;
const CACHE_MAX = 1000;

const context = (tenantId: string) => ({ tenant_id: tenantId, purpose: 'webhook-secret' });

/** A secret box over KMS with its own client (created on first use) and cache of decrypted secrets. */
export function createKmsSecretBox(options: KmsSecretBoxOptions): SecretBox {
  let client: KMSClient | undefined;
  const sdk = () => import('@aws-sdk/client-kms');
  const kms = async (): Promise<KMSClient> => {
    const { KMSClient } = await sdk();
    return (client ??= traced(new KMSClient({ region: options.region, maxAttempts: 5 })));
  };
  const cache = new Map<string, { plain: string; until: number }>();
  const keyId = (): string => {
    if (!options.keyId) throw new Error('SECRETS_KEY_ID is not configured: webhook secrets cannot be stored');
    return options.keyId;
  };
  return {
    async encrypt(plain, tenantId) {
      const { EncryptCommand } = await sdk();
      const out = await (await kms()).send(new EncryptCommand({ KeyId: keyId(), Plaintext: Buffer.from(plain, 'utf8'), EncryptionContext: context(tenantId) }));
      if (!out.CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
      return Buffer.from(out.CiphertextBlob).toString('base64');
    },
    async decrypt(ciphertext, tenantId) {
      const cacheKey = `${tenantId}:${ciphertext}`;
      const hit = cache.get(cacheKey);
      if (hit && hit.until > Date.now()) return hit.plain;
      const { DecryptCommand } = await sdk();
      const out = await (await kms()).send(new DecryptCommand({ CiphertextBlob: Buffer.from(ciphertext, 'base64'), EncryptionContext: context(tenantId) }));
      if (!out.Plaintext) throw new Error('KMS Decrypt returned no plaintext');
      const plain = Buffer.from(out.Plaintext).toString('utf8');
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(cacheKey, { plain, until: Date.now() + CACHE_MS });
      return plain;
    },
  };
}
