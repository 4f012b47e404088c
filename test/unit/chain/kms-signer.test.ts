import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import type { KMSClient } from '@aws-sdk/client-kms';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Signature, Transaction, TypedDataEncoder, computeAddress, hexlify, verifyMessage, verifyTypedData } from 'ethers';
import { SECP256K1_N, encodeDerSignature, encodeSecp256k1Spki } from '../../../shared/chain/signer/der.js';
import { KmsSigner, KmsSignerError } from '../../../shared/chain/signer/kms-signer.js';

type SMode = 'low' | 'high';

/** A stand-in for KMSClient: answers GetPublicKey and Sign (DIGEST) like KMS, from a local key. */
function fakeKms(options: { forceS?: SMode; signWith?: Uint8Array; keySpec?: string } = {}) {
  const secretKey = secp256k1.utils.randomSecretKey();
  const calls = { getPublicKey: 0, sign: 0 };
  const client = {
    send: async (command: unknown): Promise<unknown> => {
      if (command instanceof GetPublicKeyCommand) {
        calls.getPublicKey++;
        return {
          KeyId: 'arn:aws:kms:us-east-1:000000000000:key/test',
          KeySpec: options.keySpec ?? 'ECC_SECG_P256K1',
          KeyUsage: 'SIGN_VERIFY',
          PublicKey: encodeSecp256k1Spki(secp256k1.getPublicKey(secretKey, false)),
        };
      }
      if (command instanceof SignCommand) {
        calls.sign++;
        const { Message, MessageType, SigningAlgorithm } = command.input;
        if (MessageType !== 'DIGEST' || SigningAlgorithm !== 'ECDSA_SHA_256' || !(Message instanceof Uint8Array)) {
          throw new Error('unexpected Sign input');
        }
        const compact = secp256k1.sign(Message, options.signWith ?? secretKey, { prehash: false, extraEntropy: true });
        const sig = secp256k1.Signature.fromBytes(compact, 'compact'); // low s
        const s = options.forceS === 'high' ? SECP256K1_N - sig.s : sig.s;
        return { Signature: encodeDerSignature({ r: sig.r, s }), SigningAlgorithm: 'ECDSA_SHA_256' };
      }
      throw new Error('unexpected command');
    },
  };
  const address = computeAddress(hexlify(secp256k1.getPublicKey(secretKey, false)));
  return { client: client as unknown as KMSClient, address, calls };
}

const halfN = SECP256K1_N >> 1n;
const sOf = (serialized: string): bigint => BigInt(Signature.from(serialized).s);

describe('KmsSigner', () => {
  it('derives the address from the KMS public key, once', async () => {
    const kms = fakeKms();
    const signer = new KmsSigner(kms.client, 'key');
    expect(await signer.getAddress()).toBe(kms.address);
    await signer.signMessage('a');
    await signer.signMessage('b');
    expect(kms.calls.getPublicKey).toBe(1);
    expect(kms.calls.sign).toBe(2);
  });

  it.each<SMode>(['low', 'high'])('signs messages with low s whatever KMS returns (%s s)', async (mode) => {
    const kms = fakeKms({ forceS: mode });
    const signer = new KmsSigner(kms.client, 'key');
    for (let i = 0; i < 4; i++) {
      const message = `hello ${i}`;
      const sig = await signer.signMessage(message);
      expect(verifyMessage(message, sig)).toBe(kms.address);
      expect(sOf(sig) <= halfN).toBe(true);
    }
  });

  it.each<SMode>(['low', 'high'])('signs EIP-1559 and legacy transactions recoverable to its address (%s s)', async (mode) => {
    const kms = fakeKms({ forceS: mode });
    const signer = new KmsSigner(kms.client, 'key');
    const eip1559 = await signer.signTransaction({
      type: 2,
      chainId: 31337n,
      nonce: 7,
      to: '0x000000000000000000000000000000000000dEaD',
      value: 10n ** 18n,
      gasLimit: 21000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    const parsed = Transaction.from(eip1559);
    expect(parsed.type).toBe(2);
    expect(parsed.from).toBe(kms.address);
    expect(parsed.nonce).toBe(7);
    expect(BigInt(parsed.signature?.s ?? '0x0') <= halfN).toBe(true);

    const legacy = Transaction.from(await signer.signTransaction({ type: 0, chainId: 1337n, nonce: 0, to: kms.address, gasLimit: 21000n, gasPrice: 1n }));
    expect(legacy.type).toBe(0);
    expect(legacy.chainId).toBe(1337n);
    expect(legacy.from).toBe(kms.address);
  });

  it('signs EIP-712 typed data', async () => {
    const kms = fakeKms({ forceS: 'high' });
    const signer = new KmsSigner(kms.client, 'key');
    const domain = { name: 'Gateway', version: '1', chainId: 1, verifyingContract: '0x000000000000000000000000000000000000bEEF' };
    const types = {
      Payout: [
        { name: 'to', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
    };
    const value = { to: kms.address, amount: 123n };
    const sig = await signer.signTypedData(domain, types, value);
    expect(verifyTypedData(domain, types, value, sig)).toBe(kms.address);
    expect(TypedDataEncoder.hash(domain, types, value)).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('refuses a transaction whose from is another account', async () => {
    const signer = new KmsSigner(fakeKms().client, 'key');
    await expect(
      signer.signTransaction({
        from: '0x000000000000000000000000000000000000dEaD',
        to: '0x000000000000000000000000000000000000dEaD',
        chainId: 1n,
        gasLimit: 21000n,
        gasPrice: 1n,
        nonce: 0,
      }),
    ).rejects.toMatchObject({ code: 'KMS_FROM_MISMATCH' });
  });

  it('fails when the KMS signature does not recover to the key address', async () => {
    const kms = fakeKms({ signWith: secp256k1.utils.randomSecretKey() });
    const signer = new KmsSigner(kms.client, 'key');
    await expect(signer.signMessage('x')).rejects.toBeInstanceOf(KmsSignerError);
    await expect(signer.signMessage('x')).rejects.toMatchObject({ code: 'KMS_SIGNATURE_UNUSABLE' });
  });

  it('rejects keys that are not secp256k1 signing keys', async () => {
    const signer = new KmsSigner(fakeKms({ keySpec: 'ECC_NIST_P256' }).client, 'key');
    await expect(signer.getAddress()).rejects.toMatchObject({ code: 'KMS_KEY_UNSUITABLE' });
  });

  it('rejects digests that are not 32 bytes', async () => {
    const signer = new KmsSigner(fakeKms().client, 'key');
    await expect(signer.signDigest(new Uint8Array(31))).rejects.toThrow(/32 bytes/);
  });

  it('keeps the key when connected to another provider', async () => {
    const kms = fakeKms();
    const signer = new KmsSigner(kms.client, 'key');
    await signer.getAddress();
    const connected = signer.connect(null);
    expect(await connected.getAddress()).toBe(kms.address);
    expect(kms.calls.getPublicKey).toBe(1);
  });
});
