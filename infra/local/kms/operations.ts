/**
 * The operations of the local KMS endpoint (infra/local/kms/server.ts), one handler per `X-Amz-Target`
 * operation, over the key store: JSON body in, JSON body out, a KmsError for what KMS answers with 400.
 *
 * LOCAL DEVELOPMENT ONLY: key material is kept in plain text (memory, or `<dataDir>/kms-keys.json`).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ed25519, ed25519ph } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { encodeSecp256k1Spki } from '../../../shared/chain/signer/der.js';
import { encodeEd25519Spki } from '../../../shared/chain/signer/ed25519.js';
import type { KeyStore } from './keystore.js';
import type { KeySpec, KeyUsage, StoredKey } from './keystore.js';

/** A KMS error answer: HTTP 400 with `{"__type": type, "message": ...}`. */
export class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'KmsError';
  }
}

export type Body = Record<string, unknown>;
export type Handler = (body: Body) => Body;

const MAX_PLAINTEXT_BYTES = 4096;
const CIPHERTEXT_VERSION = 1;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The signing algorithms of each asymmetric key spec, as DescribeKey and GetPublicKey list them. */
const SIGNING_ALGORITHMS: Partial<Record<KeySpec, string[]>> = {
  ECC_SECG_P256K1: ['ECDSA_SHA_256'],
  ECC_NIST_EDWARDS25519: ['ED25519_SHA_512', 'ED25519_PH_SHA_512'],
};

function str(body: Body, field: string): string;
function str(body: Body, field: string, optional: true): string | undefined;
function str(body: Body, field: string, optional = false): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) {
    if (optional) return undefined;
    throw new KmsError('ValidationException', `1 validation error detected: Value null at '${field}' failed to satisfy constraint: Member must not be null`);
  }
  if (typeof value !== 'string') throw new KmsError('SerializationException', `${field} must be a string`);
  return value;
}

function blob(body: Body, field: string): Buffer {
  const value = str(body, field);
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length === 0) {
    throw new KmsError(
      'ValidationException',
      `1 validation error detected: Value at '${field}' failed to satisfy constraint: Member must have length greater than or equal to 1`,
    );
  }
  return bytes;
}

function encryptionContext(body: Body): Record<string, string> {
  const value = body.EncryptionContext;
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new KmsError('SerializationException', 'EncryptionContext must be a map');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new KmsError('SerializationException', 'EncryptionContext values must be strings');
    out[k] = v;
  }
  return out;
}

/** Additional authenticated data: the key id and the encryption context, canonically ordered. */
function aad(keyId: string, context: Record<string, string>): Buffer {
  const entries = Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.from(JSON.stringify([keyId, entries]), 'utf8');
}

function uuidToBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

function bytesToUuid(bytes: Buffer): string {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function createKmsHandlers(store: KeyStore, region: string, accountId: string): Record<string, Handler> {
  const keyArn = (keyId: string): string => `arn:aws:kms:${region}:${accountId}:key/${keyId}`;
  const aliasArn = (name: string): string => `arn:aws:kms:${region}:${accountId}:${name}`;

  const resolve = (ref: string): StoredKey => {
    let keyId: string | undefined;
    const arn = /^arn:aws[a-z-]*:kms:[^:]*:[^:]*:(key\/.+|alias\/.+)$/.exec(ref);
    const local = arn ? (arn[1] as string) : ref;
    if (local.startsWith('alias/')) {
      keyId = store.alias(local)?.keyId;
      if (!keyId) throw new KmsError('NotFoundException', `Alias ${aliasArn(local)} is not found.`);
    } else {
      keyId = local.startsWith('key/') ? local.slice(4) : local;
    }
    const key = store.get(keyId);
    if (!key) throw new KmsError('NotFoundException', `Key '${keyArn(keyId)}' does not exist`);
    return key;
  };

  const pendingDeletion = (key: StoredKey): KmsError => new KmsError('KMSInvalidStateException', `${keyArn(key.keyId)} is pending deletion.`);

  const usable = (ref: string, usage: KeyUsage): StoredKey => {
    const key = resolve(ref);
    if (key.deletionDate !== undefined) throw pendingDeletion(key);
    if (!key.enabled) throw new KmsError('DisabledException', `${keyArn(key.keyId)} is disabled.`);
    if (key.keyUsage !== usage) {
      throw new KmsError('InvalidKeyUsageException', `${keyArn(key.keyId)} key usage is ${key.keyUsage} which is not valid for this operation.`);
    }
    return key;
  };

  const metadata = (key: StoredKey): Body => ({
    AWSAccountId: accountId,
    KeyId: key.keyId,
    Arn: keyArn(key.keyId),
    CreationDate: key.createdAt,
    Enabled: key.enabled,
    Description: key.description,
    KeyUsage: key.keyUsage,
    KeyState: key.deletionDate !== undefined ? 'PendingDeletion' : key.enabled ? 'Enabled' : 'Disabled',
    ...(key.deletionDate !== undefined ? { DeletionDate: key.deletionDate } : {}),
    Origin: 'AWS_KMS',
    KeyManager: 'CUSTOMER',
    CustomerMasterKeySpec: key.keySpec,
    KeySpec: key.keySpec,
    ...(SIGNING_ALGORITHMS[key.keySpec] ? { SigningAlgorithms: SIGNING_ALGORITHMS[key.keySpec] } : { EncryptionAlgorithms: ['SYMMETRIC_DEFAULT'] }),
    MultiRegion: false,
  });

  const publicKeyOf = (key: StoredKey): Uint8Array => secp256k1.getPublicKey(Buffer.from(key.material, 'hex'), false);

  /** The signing algorithm a Sign or Verify asks for, checked against the key's spec. */
  const algorithmOf = (body: Body, key: StoredKey): string => {
    const algorithm = str(body, 'SigningAlgorithm');
    if (!SIGNING_ALGORITHMS[key.keySpec]?.includes(algorithm)) {
      throw new KmsError('InvalidKeyUsageException', `Algorithm ${algorithm} is incompatible with key spec ${key.keySpec}.`);
    }
    return algorithm;
  };

  /** The 32-byte digest to sign or verify with ECDSA_SHA_256: the message itself (DIGEST) or its SHA-256 (RAW). */
  const digestOf = (body: Body): Buffer => {
    const message = blob(body, 'Message');
    const type = str(body, 'MessageType', true) ?? 'RAW';
    if (type === 'DIGEST') {
      if (message.length !== 32) throw new KmsError('ValidationException', 'Digest is invalid length for algorithm ECDSA_SHA_256.');
      return message;
    }
    if (type !== 'RAW') throw new KmsError('ValidationException', `Invalid MessageType ${type}`);
    if (message.length > MAX_PLAINTEXT_BYTES) throw new KmsError('ValidationException', 'Message must be at most 4096 bytes');
    return createHash('sha256').update(message).digest();
  };

  /**
   * Ed25519 (`ECC_NIST_EDWARDS25519`), as AWS KMS signs it: ED25519_SHA_512 is pure Ed25519 (RFC 8032) over the
   * message and takes only MessageType RAW; ED25519_PH_SHA_512 is Ed25519ph and takes only DIGEST, a 64-byte
   * SHA-512 digest that KMS prehashes once more (so the signed message is the digest). Signatures are the
   * 64 raw bytes R ‖ S, deterministic.
   */
  const ed25519Of = (body: Body, algorithm: string): { scheme: typeof ed25519; message: Buffer } => {
    const message = blob(body, 'Message');
    const type = str(body, 'MessageType', true) ?? 'RAW';
    if (algorithm === 'ED25519_SHA_512') {
      if (type !== 'RAW') throw new KmsError('ValidationException', 'ED25519_SHA_512 signing algorithm requires MessageType RAW');
      if (message.length > MAX_PLAINTEXT_BYTES) throw new KmsError('ValidationException', 'Message must be at most 4096 bytes');
      return { scheme: ed25519, message };
    }
    if (type !== 'DIGEST') throw new KmsError('ValidationException', 'ED25519_PH_SHA_512 signing algorithm requires MessageType DIGEST');
    if (message.length !== 64) throw new KmsError('ValidationException', 'Digest is invalid length for algorithm ED25519_PH_SHA_512.');
    return { scheme: ed25519ph, message };
  };

  const encrypt = (key: StoredKey, plaintext: Buffer, context: Record<string, string>): Buffer => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(key.material, 'hex'), iv);
    cipher.setAAD(aad(key.keyId, context));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.of(CIPHERTEXT_VERSION), uuidToBytes(key.keyId), iv, cipher.getAuthTag(), ciphertext]);
  };

  return {
    CreateKey(body) {
      const keySpec = (str(body, 'KeySpec', true) ?? str(body, 'CustomerMasterKeySpec', true) ?? 'SYMMETRIC_DEFAULT') as KeySpec;
      const keyUsage = (str(body, 'KeyUsage', true) ?? 'ENCRYPT_DECRYPT') as KeyUsage;
      if (keySpec === 'ECC_SECG_P256K1' || keySpec === 'ECC_NIST_EDWARDS25519') {
        if (keyUsage !== 'SIGN_VERIFY') throw new KmsError('ValidationException', `KeyUsage ${keyUsage} is not compatible with KeySpec ${keySpec}`);
      } else if (keySpec === 'SYMMETRIC_DEFAULT') {
        if (keyUsage !== 'ENCRYPT_DECRYPT') throw new KmsError('ValidationException', `KeyUsage ${keyUsage} is not compatible with KeySpec ${keySpec}`);
      } else {
        throw new KmsError('ValidationException', `KeySpec ${String(keySpec)} is not supported by the local KMS`);
      }
      // An Ed25519 private key is any 32 random bytes (the RFC 8032 seed), as is an AES-256 key.
      const material = keySpec === 'ECC_SECG_P256K1' ? Buffer.from(secp256k1.utils.randomSecretKey()).toString('hex') : randomBytes(32).toString('hex');
      const tags = Array.isArray(body.Tags) ? (body.Tags as { TagKey: string; TagValue: string }[]) : [];
      const key = store.create({ description: str(body, 'Description', true) ?? '', keySpec, keyUsage, material, tags });
      return { KeyMetadata: metadata(key) };
    },

    DescribeKey(body) {
      return { KeyMetadata: metadata(resolve(str(body, 'KeyId'))) };
    },

    ListKeys() {
      return { Keys: store.list().map((k) => ({ KeyId: k.keyId, KeyArn: keyArn(k.keyId) })), Truncated: false };
    },

    EnableKey(body) {
      const key = resolve(str(body, 'KeyId'));
      if (key.deletionDate !== undefined) throw pendingDeletion(key);
      store.setEnabled(key.keyId, true);
      return {};
    },

    DisableKey(body) {
      store.setEnabled(resolve(str(body, 'KeyId')).keyId, false);
      return {};
    },

    /** As KMS: 7 to 30 days (default 30); the key is unusable until deleted. The local KMS never deletes it. */
    ScheduleKeyDeletion(body) {
      const key = resolve(str(body, 'KeyId'));
      if (key.deletionDate !== undefined) throw pendingDeletion(key);
      const days = body.PendingWindowInDays ?? 30;
      if (typeof days !== 'number' || !Number.isInteger(days) || days < 7 || days > 30) {
        throw new KmsError('ValidationException', 'PendingWindowInDays must be an integer from 7 to 30');
      }
      const deletionDate = Math.floor(Date.now() / 1000) + days * 86_400;
      store.setDeletion(key.keyId, deletionDate);
      return { KeyId: keyArn(key.keyId), DeletionDate: deletionDate, KeyState: 'PendingDeletion', PendingWindowInDays: days };
    },

    CancelKeyDeletion(body) {
      const key = resolve(str(body, 'KeyId'));
      if (key.deletionDate === undefined) throw new KmsError('KMSInvalidStateException', `${keyArn(key.keyId)} is not pending deletion.`);
      store.setDeletion(key.keyId, undefined);
      return { KeyId: keyArn(key.keyId) };
    },

    GetPublicKey(body) {
      const key = resolve(str(body, 'KeyId'));
      const algorithms = SIGNING_ALGORITHMS[key.keySpec];
      if (!algorithms) {
        throw new KmsError('UnsupportedOperationException', `${keyArn(key.keyId)} key usage is ENCRYPT_DECRYPT which is not valid for GetPublicKey.`);
      }
      if (key.deletionDate !== undefined) throw pendingDeletion(key);
      if (!key.enabled) throw new KmsError('DisabledException', `${keyArn(key.keyId)} is disabled.`);
      const spki =
        key.keySpec === 'ECC_NIST_EDWARDS25519'
          ? encodeEd25519Spki(ed25519.getPublicKey(Buffer.from(key.material, 'hex')))
          : encodeSecp256k1Spki(publicKeyOf(key));
      return {
        KeyId: keyArn(key.keyId),
        PublicKey: Buffer.from(spki).toString('base64'),
        CustomerMasterKeySpec: key.keySpec,
        KeySpec: key.keySpec,
        KeyUsage: key.keyUsage,
        SigningAlgorithms: algorithms,
      };
    },

    Sign(body) {
      const key = usable(str(body, 'KeyId'), 'SIGN_VERIFY');
      const algorithm = algorithmOf(body, key);
      if (key.keySpec === 'ECC_NIST_EDWARDS25519') {
        const { scheme, message } = ed25519Of(body, algorithm);
        const signature = scheme.sign(message, Buffer.from(key.material, 'hex'));
        return { KeyId: keyArn(key.keyId), Signature: Buffer.from(signature).toString('base64'), SigningAlgorithm: algorithm };
      }
      const digest = digestOf(body);
      // Random nonce and no low-s normalisation: callers must cope with either half, as with real KMS.
      const der = secp256k1.sign(digest, Buffer.from(key.material, 'hex'), {
        prehash: false,
        lowS: false,
        extraEntropy: true,
        format: 'der',
      });
      return { KeyId: keyArn(key.keyId), Signature: Buffer.from(der).toString('base64'), SigningAlgorithm: 'ECDSA_SHA_256' };
    },

    Verify(body) {
      const key = usable(str(body, 'KeyId'), 'SIGN_VERIFY');
      const algorithm = algorithmOf(body, key);
      const signature = blob(body, 'Signature');
      let valid: boolean;
      try {
        if (key.keySpec === 'ECC_NIST_EDWARDS25519') {
          const { scheme, message } = ed25519Of(body, algorithm);
          valid = scheme.verify(signature, message, scheme.getPublicKey(Buffer.from(key.material, 'hex')));
        } else {
          valid = secp256k1.verify(signature, digestOf(body), publicKeyOf(key), { prehash: false, lowS: false, format: 'der' });
        }
      } catch (error) {
        if (error instanceof KmsError) throw error;
        valid = false;
      }
      if (!valid) throw new KmsError('KMSInvalidSignatureException', 'Signature is not valid');
      return { KeyId: keyArn(key.keyId), SignatureValid: true, SigningAlgorithm: algorithm };
    },

    Encrypt(body) {
      const key = usable(str(body, 'KeyId'), 'ENCRYPT_DECRYPT');
      const plaintext = blob(body, 'Plaintext');
      if (plaintext.length > MAX_PLAINTEXT_BYTES) throw new KmsError('ValidationException', 'Plaintext must be at most 4096 bytes');
      return {
        KeyId: keyArn(key.keyId),
        CiphertextBlob: encrypt(key, plaintext, encryptionContext(body)).toString('base64'),
        EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      };
    },

    Decrypt(body) {
      const data = blob(body, 'CiphertextBlob');
      if (data.length < 1 + 16 + 12 + 16 || data[0] !== CIPHERTEXT_VERSION) {
        throw new KmsError('InvalidCiphertextException', 'The ciphertext is invalid.');
      }
      const keyId = bytesToUuid(data.subarray(1, 17));
      if (!UUID_RE.test(keyId) || !store.get(keyId)) throw new KmsError('InvalidCiphertextException', 'The ciphertext is invalid.');
      const requested = str(body, 'KeyId', true);
      if (requested !== undefined && resolve(requested).keyId !== keyId) {
        throw new KmsError('IncorrectKeyException', 'The key ID in the request does not identify a CMK that can perform this operation.');
      }
      const key = usable(keyId, 'ENCRYPT_DECRYPT');
      try {
        const decipher = createDecipheriv('aes-256-gcm', Buffer.from(key.material, 'hex'), data.subarray(17, 29));
        decipher.setAAD(aad(key.keyId, encryptionContext(body)));
        decipher.setAuthTag(data.subarray(29, 45));
        const plaintext = Buffer.concat([decipher.update(data.subarray(45)), decipher.final()]);
        return { KeyId: keyArn(key.keyId), Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
      } catch {
        // Wrong EncryptionContext or a tampered blob: real KMS answers the same.
        throw new KmsError('InvalidCiphertextException', 'The ciphertext is invalid.');
      }
    },

    GenerateDataKey(body) {
      const key = usable(str(body, 'KeyId'), 'ENCRYPT_DECRYPT');
      const spec = str(body, 'KeySpec', true);
      const count = body.NumberOfBytes;
      let size: number;
      if (spec === 'AES_256') size = 32;
      else if (spec === 'AES_128') size = 16;
      else if (spec === undefined && typeof count === 'number' && Number.isInteger(count) && count >= 1 && count <= 1024) size = count;
      else throw new KmsError('ValidationException', 'Specify either KeySpec (AES_256, AES_128) or NumberOfBytes (1-1024)');
      const plaintext = randomBytes(size);
      return {
        KeyId: keyArn(key.keyId),
        Plaintext: plaintext.toString('base64'),
        CiphertextBlob: encrypt(key, plaintext, encryptionContext(body)).toString('base64'),
      };
    },

    GenerateRandom(body) {
      const count = body.NumberOfBytes;
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 1024) {
        throw new KmsError('ValidationException', 'NumberOfBytes must be an integer from 1 to 1024');
      }
      return { Plaintext: randomBytes(count).toString('base64') };
    },

    CreateAlias(body) {
      const name = str(body, 'AliasName');
      if (!/^alias\/[a-zA-Z0-9/_-]+$/.test(name) || name.startsWith('alias/aws/')) {
        throw new KmsError('ValidationException', `Alias name ${name} is invalid`);
      }
      if (store.alias(name)) throw new KmsError('AlreadyExistsException', `An alias with the name ${aliasArn(name)} already exists`);
      store.putAlias(name, resolve(str(body, 'TargetKeyId')).keyId);
      return {};
    },

    DeleteAlias(body) {
      const name = str(body, 'AliasName');
      if (!store.deleteAlias(name)) throw new KmsError('NotFoundException', `Alias ${aliasArn(name)} is not found.`);
      return {};
    },

    ListAliases(body) {
      const filter = str(body, 'KeyId', true);
      const keyId = filter === undefined ? undefined : resolve(filter).keyId;
      return {
        Aliases: store
          .aliases()
          .filter((a) => keyId === undefined || a.keyId === keyId)
          .map((a) => ({ AliasName: a.name, AliasArn: aliasArn(a.name), TargetKeyId: a.keyId, CreationDate: a.createdAt })),
        Truncated: false,
      };
    },
  };
}
