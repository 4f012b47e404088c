import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import type { KMSClient } from '@aws-sdk/client-kms';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { encodeDerSignature, encodeSecp256k1Spki, isHighS, parseDerSignature, SECP256K1_N } from '../../../shared/chain/signer/der.js';
import { KmsBtcSigner } from '../../../shared/chain/signer/kms-btc-signer.js';

/** KmsBtcSigner against a KMS double: the compressed key, low s, DER + SIGHASH_ALL, verified before it is returned. */

const SECRET = hexToBytes('44'.repeat(32));
const OTHER = hexToBytes('55'.repeat(32));

/** A KMS that answers with `secret`'s key and signatures by `signer` (high s when `highS`), counting its calls. */
function kmsDouble(options: { signer?: Uint8Array; highS?: boolean; keySpec?: string } = {}) {
  const calls = { getPublicKey: 0, sign: 0 };
  const client = {
    async send(command: unknown) {
      if (command instanceof GetPublicKeyCommand) {
        calls.getPublicKey++;
        return { KeySpec: options.keySpec ?? 'ECC_SECG_P256K1', PublicKey: encodeSecp256k1Spki(secp256k1.getPublicKey(SECRET, false)) };
      }
      if (command instanceof SignCommand) {
        calls.sign++;
        expect(command.input).toMatchObject({ MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' });
        const sig = secp256k1.sign(command.input.Message as Uint8Array, options.signer ?? SECRET, { prehash: false, format: 'der', lowS: true });
        const { r, s } = parseDerSignature(sig);
        return { Signature: encodeDerSignature({ r, s: options.highS ? SECP256K1_N - s : s }) };
      }
      throw new Error('unexpected command');
    },
  };
  return { client: client as unknown as KMSClient, calls };
}

const digest = sha256(utf8ToBytes('a BIP143 sighash'));

describe('KmsBtcSigner', () => {
  it('gives the compressed public key, asking KMS once', async () => {
    const { client, calls } = kmsDouble();
    const signer = new KmsBtcSigner(client, 'key');
    expect(await signer.publicKey()).toEqual(secp256k1.getPublicKey(SECRET, true));
    await signer.publicKey();
    await signer.signDigest(digest);
    expect(calls.getPublicKey).toBe(1);
  });

  it('normalises a high s to the low half and appends SIGHASH_ALL; the result verifies', async () => {
    const { client, calls } = kmsDouble({ highS: true });
    const signer = new KmsBtcSigner(client, 'key');
    const signature = await signer.signDigest(digest);
    expect(signature[signature.length - 1]).toBe(0x01);
    const der = signature.subarray(0, -1);
    expect(isHighS(parseDerSignature(der).s)).toBe(false);
    expect(secp256k1.verify(der, digest, secp256k1.getPublicKey(SECRET, true), { prehash: false, format: 'der', lowS: true })).toBe(true);
    expect(signer.calls).toBe(1);
    expect(calls.sign).toBe(1);
  });

  it('refuses a signature that does not verify against the key, and a key that is not secp256k1', async () => {
    await expect(new KmsBtcSigner(kmsDouble({ signer: OTHER }).client, 'key').signDigest(digest)).rejects.toMatchObject({ code: 'KMS_SIGNATURE_UNUSABLE' });
    await expect(new KmsBtcSigner(kmsDouble({ keySpec: 'ECC_NIST_P256' }).client, 'key').publicKey()).rejects.toMatchObject({ code: 'KMS_KEY_UNSUITABLE' });
    await expect(new KmsBtcSigner(kmsDouble().client, 'key').signDigest(digest.subarray(1))).rejects.toThrow(RangeError);
  });
});
