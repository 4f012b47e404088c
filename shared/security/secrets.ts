import { createHash, randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Credential material. Access tokens and API keys are random and stored only as SHA-256 hashes (they have
 * 256 bits of entropy, so a fast hash is enough); client secrets are stored as scrypt hashes. Every
 * comparison of secret-derived bytes is constant-time.
 */

export const newId = (): string => randomUUID();

/** An opaque random credential with a readable prefix (`gat_...`, `gak_...`). */
export function randomSecret(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NAMED = /^[a-z]+_[\w-]{43}([\w-]{22})$/;

/**
 * An access token or API key that names its tenant: the prefix, 32 random bytes, then the tenant id's 16 bytes, all
 * base64url (`gat_` + 43 + 22 characters). The gateway reads the credential's item and the tenant's in one
 * round trip; the tenant named is only a guess until the credential's own item confirms it. A tenant id that is
 * not a UUID is left out (a credential without a tenant).
 */
export function tenantSecret(prefix: string, tenantId: string): string {
  const hex = tenantId.toLowerCase().replaceAll('-', '');
  const named = UUID.test(tenantId) ? Buffer.from(hex, 'hex').toString('base64url') : '';
  return `${randomSecret(prefix, 32)}${named}`;
}

/** The tenant a credential made by `tenantSecret` names; null for any other string (credentials made before, garbage). */
export function tenantNamedBy(credential: string): string | null {
  const named = NAMED.exec(credential)?.[1];
  if (!named) return null;
  const hex = Buffer.from(named, 'base64url').toString('hex');
  if (hex.length !== 32) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 } as const;

function scryptAsync(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash`, salt and hash base64url. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(secret, salt);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, , , , saltText, hashText] = stored.split('$');
  if (scheme !== 'scrypt' || !saltText || !hashText) return false;
  const expected = Buffer.from(hashText, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(saltText, 'base64url'));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash of a secret that fails verification in the same time as a real one (unknown client ids). */
export const DUMMY_SECRET_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
