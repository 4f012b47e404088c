import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateAliasCommand,
  CreateKeyCommand,
  DecryptCommand,
  DescribeKeyCommand,
  DisableKeyCommand,
  EncryptCommand,
  GenerateDataKeyCommand,
  GetPublicKeyCommand,
  KMSClient,
  ListAliasesCommand,
  ListKeysCommand,
  SignCommand,
  VerifyCommand,
} from '@aws-sdk/client-kms';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { parseDerSignature, parseSecp256k1Spki } from '../../../shared/chain/signer/der.js';
import { startKmsServer } from '../../../infra/local/kms/server.js';
import type { KmsServer } from '../../../infra/local/kms/server.js';

const kmsClient = (url: string): KMSClient =>
  new KMSClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('local KMS server (through @aws-sdk/client-kms)', () => {
  let server: KmsServer;
  let kms: KMSClient;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'kms-test-'));
    server = await startKmsServer({ host: '127.0.0.1', port: 0, dataDir });
    kms = kmsClient(server.url);
  });

  afterAll(async () => {
    kms?.destroy();
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const createSigningKey = async (): Promise<string> => {
    const out = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY', Description: 'hot wallet' }));
    return out.KeyMetadata?.KeyId as string;
  };

  it('creates and describes secp256k1 signing keys', async () => {
    const keyId = await createSigningKey();
    const described = await kms.send(new DescribeKeyCommand({ KeyId: keyId }));
    expect(described.KeyMetadata).toMatchObject({
      KeyId: keyId,
      Arn: `arn:aws:kms:us-east-1:000000000000:key/${keyId}`,
      KeySpec: 'ECC_SECG_P256K1',
      KeyUsage: 'SIGN_VERIFY',
      KeyState: 'Enabled',
      Enabled: true,
      Description: 'hot wallet',
      SigningAlgorithms: ['ECDSA_SHA_256'],
    });
    expect(described.KeyMetadata?.CreationDate).toBeInstanceOf(Date);
    const listed = await kms.send(new ListKeysCommand({}));
    expect(listed.Keys?.map((k) => k.KeyId)).toContain(keyId);
  });

  it('returns a DER SPKI public key and DER signatures of digests that verify against it', async () => {
    const keyId = await createSigningKey();
    const pub = await kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
    expect(pub.KeySpec).toBe('ECC_SECG_P256K1');
    const point = parseSecp256k1Spki(pub.PublicKey as Uint8Array);
    const digest = sha256(utf8('transaction'));
    const signatures = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const out = await kms.send(new SignCommand({ KeyId: keyId, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' }));
      const der = out.Signature as Uint8Array;
      expect(() => parseDerSignature(der)).not.toThrow();
      expect(secp256k1.verify(der, digest, point, { prehash: false, lowS: false, format: 'der' })).toBe(true);
      signatures.add(Buffer.from(der).toString('hex'));
    }
    // Random nonces, like real KMS: the same digest gives different signatures.
    expect(signatures.size).toBe(4);

    const raw = await kms.send(new SignCommand({ KeyId: keyId, Message: utf8('raw message'), MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }));
    expect(secp256k1.verify(raw.Signature as Uint8Array, sha256(utf8('raw message')), point, { prehash: false, lowS: false, format: 'der' })).toBe(true);
    const valid = await kms.send(
      new VerifyCommand({ KeyId: keyId, Message: utf8('raw message'), MessageType: 'RAW', Signature: raw.Signature, SigningAlgorithm: 'ECDSA_SHA_256' }),
    );
    expect(valid.SignatureValid).toBe(true);
    const verified = await kms
      .send(new VerifyCommand({ KeyId: keyId, Message: digest, MessageType: 'DIGEST', Signature: raw.Signature, SigningAlgorithm: 'ECDSA_SHA_256' }))
      .catch((e: Error) => e);
    expect(verified).toMatchObject({ name: 'KMSInvalidSignatureException' });
  });

  it('resolves aliases and ARNs', async () => {
    const keyId = await createSigningKey();
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/hot-wallet-test', TargetKeyId: keyId }));
    const byAlias = await kms.send(new GetPublicKeyCommand({ KeyId: 'alias/hot-wallet-test' }));
    const byArn = await kms.send(new GetPublicKeyCommand({ KeyId: `arn:aws:kms:us-east-1:000000000000:key/${keyId}` }));
    expect(Buffer.from(byAlias.PublicKey as Uint8Array)).toEqual(Buffer.from(byArn.PublicKey as Uint8Array));
    const aliases = await kms.send(new ListAliasesCommand({ KeyId: keyId }));
    expect(aliases.Aliases?.map((a) => a.AliasName)).toEqual(['alias/hot-wallet-test']);
    await expect(kms.send(new CreateAliasCommand({ AliasName: 'alias/hot-wallet-test', TargetKeyId: keyId }))).rejects.toMatchObject({
      name: 'AlreadyExistsException',
    });
  });

  it('answers AWS errors the SDK understands', async () => {
    await expect(kms.send(new DescribeKeyCommand({ KeyId: '00000000-0000-0000-0000-000000000000' }))).rejects.toMatchObject({
      name: 'NotFoundException',
      $metadata: { httpStatusCode: 400 },
    });
    const symmetric = await kms.send(new CreateKeyCommand({}));
    await expect(
      kms.send(new SignCommand({ KeyId: symmetric.KeyMetadata?.KeyId, Message: new Uint8Array(32), MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' })),
    ).rejects.toMatchObject({ name: 'InvalidKeyUsageException' });
    const signing = await createSigningKey();
    await expect(
      kms.send(new SignCommand({ KeyId: signing, Message: new Uint8Array(31), MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await kms.send(new DisableKeyCommand({ KeyId: signing }));
    await expect(
      kms.send(new SignCommand({ KeyId: signing, Message: new Uint8Array(32), MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' })),
    ).rejects.toMatchObject({ name: 'DisabledException' });
  });

  it('encrypts and decrypts with AES-256-GCM, without KeyId on Decrypt, honouring the encryption context', async () => {
    const key = await kms.send(new CreateKeyCommand({ KeySpec: 'SYMMETRIC_DEFAULT', KeyUsage: 'ENCRYPT_DECRYPT' }));
    const keyId = key.KeyMetadata?.KeyId as string;
    const context = { tenant: 't-1', purpose: 'webhook-secret' };
    const enc = await kms.send(new EncryptCommand({ KeyId: keyId, Plaintext: utf8('whsec_secret'), EncryptionContext: context }));
    expect(Buffer.from(enc.CiphertextBlob as Uint8Array).includes(Buffer.from('whsec_secret'))).toBe(false);

    const dec = await kms.send(new DecryptCommand({ CiphertextBlob: enc.CiphertextBlob, EncryptionContext: { purpose: 'webhook-secret', tenant: 't-1' } }));
    expect(Buffer.from(dec.Plaintext as Uint8Array).toString()).toBe('whsec_secret');
    expect(dec.KeyId).toBe(`arn:aws:kms:us-east-1:000000000000:key/${keyId}`);

    await expect(
      kms.send(new DecryptCommand({ CiphertextBlob: enc.CiphertextBlob, EncryptionContext: { tenant: 't-2', purpose: 'webhook-secret' } })),
    ).rejects.toMatchObject({
      name: 'InvalidCiphertextException',
    });
    await expect(kms.send(new DecryptCommand({ CiphertextBlob: enc.CiphertextBlob }))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    const other = await kms.send(new CreateKeyCommand({}));
    await expect(
      kms.send(new DecryptCommand({ CiphertextBlob: enc.CiphertextBlob, KeyId: other.KeyMetadata?.KeyId, EncryptionContext: context })),
    ).rejects.toMatchObject({ name: 'IncorrectKeyException' });
    const tampered = Uint8Array.from(enc.CiphertextBlob as Uint8Array);
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1;
    await expect(kms.send(new DecryptCommand({ CiphertextBlob: tampered, EncryptionContext: context }))).rejects.toMatchObject({
      name: 'InvalidCiphertextException',
    });

    const dataKey = await kms.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256' }));
    expect(dataKey.Plaintext).toHaveLength(32);
    const unwrapped = await kms.send(new DecryptCommand({ CiphertextBlob: dataKey.CiphertextBlob }));
    expect(Buffer.from(unwrapped.Plaintext as Uint8Array)).toEqual(Buffer.from(dataKey.Plaintext as Uint8Array));
  });

  it('persists keys across restarts when given a data directory', async () => {
    const signing = await createSigningKey();
    const before = await kms.send(new GetPublicKeyCommand({ KeyId: signing }));
    const sym = await kms.send(new CreateKeyCommand({}));
    const enc = await kms.send(new EncryptCommand({ KeyId: sym.KeyMetadata?.KeyId, Plaintext: utf8('kept') }));

    const stored = JSON.parse(await readFile(join(dataDir, 'kms-keys.json'), 'utf8')) as { keys: { keyId: string }[] };
    expect(stored.keys.map((k) => k.keyId)).toContain(signing);

    const second = await startKmsServer({ host: '127.0.0.1', port: 0, dataDir });
    const client = kmsClient(second.url);
    try {
      const after = await client.send(new GetPublicKeyCommand({ KeyId: signing }));
      expect(Buffer.from(after.PublicKey as Uint8Array)).toEqual(Buffer.from(before.PublicKey as Uint8Array));
      const dec = await client.send(new DecryptCommand({ CiphertextBlob: enc.CiphertextBlob }));
      expect(Buffer.from(dec.Plaintext as Uint8Array).toString()).toBe('kept');
    } finally {
      client.destroy();
      await second.close();
    }
  });

  it('keeps keys in memory only without a data directory', async () => {
    const first = await startKmsServer();
    const c1 = kmsClient(first.url);
    const created = await c1.send(new CreateKeyCommand({}));
    c1.destroy();
    await first.close();
    const second = await startKmsServer();
    const c2 = kmsClient(second.url);
    try {
      await expect(c2.send(new DescribeKeyCommand({ KeyId: created.KeyMetadata?.KeyId }))).rejects.toMatchObject({ name: 'NotFoundException' });
    } finally {
      c2.destroy();
      await second.close();
    }
  });
});
