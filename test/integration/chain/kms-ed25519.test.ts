import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateKeyCommand, DescribeKeyCommand, GetPublicKeyCommand, KMSClient, SignCommand, VerifyCommand } from '@aws-sdk/client-kms';
import { ed25519ph } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { base58 } from '@scure/base';
import { startKmsServer } from '../../../infra/local/kms/server.js';
import type { KmsServer } from '../../../infra/local/kms/server.js';
import { parseEd25519Spki } from '../../../shared/chain/signer/ed25519.js';
import { createSolanaSigningKey } from '../../../shared/chain/signer/ed25519-keys.js';
import { KmsEd25519Signer } from '../../../shared/chain/signer/kms-ed25519-signer.js';

const kmsClient = (url: string): KMSClient =>
  new KMSClient({ endpoint: url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The DER SPKI read by node's own crypto, a second implementation beside @noble. */
const nodeVerifies = (spki: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean =>
  nodeVerify(null, message, createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' }), signature);

describe('local KMS: Ed25519 keys (ECC_NIST_EDWARDS25519) through @aws-sdk/client-kms', () => {
  let dataDir: string;
  let server: KmsServer;
  let kms: KMSClient;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'kms-ed25519-'));
    server = await startKmsServer({ port: 0, dataDir });
    kms = kmsClient(server.url);
  });

  afterAll(async () => {
    kms?.destroy();
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const createKey = async (): Promise<string> => {
    const out = await kms.send(
      new CreateKeyCommand({
        KeySpec: 'ECC_NIST_EDWARDS25519',
        KeyUsage: 'SIGN_VERIFY',
        Description: 'custody SOL address',
        Tags: [{ TagKey: 'gateway', TagValue: 'custody' }],
      }),
    );
    return out.KeyMetadata?.KeyId as string;
  };

  it('creates Ed25519 signing keys and describes them as AWS does', async () => {
    const keyId = await createKey();
    const { KeyMetadata } = await kms.send(new DescribeKeyCommand({ KeyId: keyId }));
    expect(KeyMetadata).toMatchObject({
      KeyId: keyId,
      KeySpec: 'ECC_NIST_EDWARDS25519',
      KeyUsage: 'SIGN_VERIFY',
      KeyState: 'Enabled',
      SigningAlgorithms: ['ED25519_SHA_512', 'ED25519_PH_SHA_512'],
    });
    expect(KeyMetadata?.EncryptionAlgorithms).toBeUndefined();
    await expect(kms.send(new CreateKeyCommand({ KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'ENCRYPT_DECRYPT' }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });

  it('returns the public key as an RFC 8410 SubjectPublicKeyInfo and signs RAW messages with pure Ed25519', async () => {
    const keyId = await createKey();
    const pub = await kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
    expect(pub).toMatchObject({ KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY', SigningAlgorithms: ['ED25519_SHA_512', 'ED25519_PH_SHA_512'] });
    const spki = pub.PublicKey as Uint8Array;
    expect(spki).toHaveLength(44);
    expect(parseEd25519Spki(spki)).toHaveLength(32);

    const message = utf8('a Solana transaction message');
    const signed = await kms.send(new SignCommand({ KeyId: keyId, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' }));
    expect(signed.SigningAlgorithm).toBe('ED25519_SHA_512');
    const signature = signed.Signature as Uint8Array;
    expect(signature).toHaveLength(64);
    expect(nodeVerifies(spki, message, signature)).toBe(true);
    expect(nodeVerifies(spki, utf8('another message'), signature)).toBe(false);
    // Ed25519 is deterministic: the same message, the same signature.
    const again = await kms.send(new SignCommand({ KeyId: keyId, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' }));
    expect(Buffer.from(again.Signature as Uint8Array)).toEqual(Buffer.from(signature));

    const verified = await kms.send(new VerifyCommand({ KeyId: keyId, Message: message, Signature: signature, SigningAlgorithm: 'ED25519_SHA_512' }));
    expect(verified.SignatureValid).toBe(true);
    await expect(
      kms.send(new VerifyCommand({ KeyId: keyId, Message: utf8('tampered'), Signature: signature, SigningAlgorithm: 'ED25519_SHA_512' })),
    ).rejects.toMatchObject({ name: 'KMSInvalidSignatureException' });
  });

  it('signs a 64-byte DIGEST with ED25519_PH_SHA_512 (Ed25519ph over the digest) and refuses the mismatched combinations', async () => {
    const keyId = await createKey();
    const publicKey = parseEd25519Spki((await kms.send(new GetPublicKeyCommand({ KeyId: keyId }))).PublicKey as Uint8Array);
    const digest = sha512(utf8('prehashed'));
    const ph = await kms.send(new SignCommand({ KeyId: keyId, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ED25519_PH_SHA_512' }));
    expect(ed25519ph.verify(ph.Signature as Uint8Array, digest, publicKey)).toBe(true);

    await expect(
      kms.send(new SignCommand({ KeyId: keyId, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ED25519_SHA_512' })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(
      kms.send(new SignCommand({ KeyId: keyId, Message: utf8('raw'), MessageType: 'RAW', SigningAlgorithm: 'ED25519_PH_SHA_512' })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(
      kms.send(new SignCommand({ KeyId: keyId, Message: new Uint8Array(32), MessageType: 'DIGEST', SigningAlgorithm: 'ED25519_PH_SHA_512' })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(
      kms.send(new SignCommand({ KeyId: keyId, Message: new Uint8Array(32), MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' })),
    ).rejects.toMatchObject({ name: 'InvalidKeyUsageException' });
    await expect(
      kms.send(new SignCommand({ KeyId: keyId, Message: new Uint8Array(4097), MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    const secp = (await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }))).KeyMetadata?.KeyId;
    await expect(
      kms.send(new SignCommand({ KeyId: secp, Message: utf8('raw'), MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' })),
    ).rejects.toMatchObject({ name: 'InvalidKeyUsageException' });
  });

  it('KmsEd25519Signer: the base58 address of the KMS key, signatures that verify; a key of another spec is refused', async () => {
    const keyId = await createKey();
    const signer = new KmsEd25519Signer(kms, keyId);
    const spki = (await kms.send(new GetPublicKeyCommand({ KeyId: keyId }))).PublicKey as Uint8Array;
    const address = await signer.getAddress();
    expect(base58.decode(address)).toEqual(parseEd25519Spki(spki));
    const message = utf8('transfer 10 USDT');
    expect(nodeVerifies(spki, message, await signer.signMessage(message))).toBe(true);
    await expect(signer.signMessage(new Uint8Array(0))).rejects.toThrow(RangeError);

    const secp = (await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }))).KeyMetadata?.KeyId as string;
    await expect(new KmsEd25519Signer(kms, secp).getAddress()).rejects.toMatchObject({ name: 'KmsEd25519SignerError', code: 'KMS_KEY_UNSUITABLE' });
  });

  it('createSolanaSigningKey: a tagged Ed25519 signing key per address, usable by KmsEd25519Signer', async () => {
    const { keyId, keyArn } = await createSolanaSigningKey(kms, { stage: 'local', custodyAccountId: 'acc-1' });
    expect(keyArn).toBe(`arn:aws:kms:us-east-1:000000000000:key/${keyId}`);
    const { KeyMetadata } = await kms.send(new DescribeKeyCommand({ KeyId: keyId }));
    expect(KeyMetadata).toMatchObject({
      KeySpec: 'ECC_NIST_EDWARDS25519',
      KeyUsage: 'SIGN_VERIFY',
      Description: 'Payment gateway (local) custody Solana address',
    });
    const signer = new KmsEd25519Signer(kms, keyArn);
    const spki = (await kms.send(new GetPublicKeyCommand({ KeyId: keyId }))).PublicKey as Uint8Array;
    expect(nodeVerifies(spki, utf8('m'), await signer.signMessage(utf8('m')))).toBe(true);
  });

  it('persists Ed25519 keys across restarts', async () => {
    const keyId = await createKey();
    const before = await new KmsEd25519Signer(kms, keyId).getAddress();
    const message = utf8('after restart');
    const signature = (await kms.send(new SignCommand({ KeyId: keyId, Message: message, SigningAlgorithm: 'ED25519_SHA_512' }))).Signature as Uint8Array;
    kms.destroy();
    await server.close();
    server = await startKmsServer({ port: 0, dataDir });
    kms = kmsClient(server.url);
    const signer = new KmsEd25519Signer(kms, keyId);
    expect(await signer.getAddress()).toBe(before);
    expect(Buffer.from(await signer.signMessage(message))).toEqual(Buffer.from(signature));
  });
});
