import type { KMSClient } from '@aws-sdk/client-kms';
import { ed25519 } from '@noble/curves/ed25519.js';
import { encodeEd25519Spki } from '../../../shared/chain/signer/ed25519.js';
import { kmsEd25519Address } from '../../../shared/chain/signer/kms-ed25519-address.js';
import { KmsEd25519Signer } from '../../../shared/chain/signer/kms-ed25519-signer.js';
import { encodeSolanaAddress } from '../../../shared/chain/solana/address.js';
import { parseConfig } from '../../../shared/config/config.js';
import { builtinProvider } from '../../../shared/runtime/custody-accounts.js';

/**
 * The custody Lambda's provider (shared/runtime/custody-accounts.ts): a new key's SOL address read from KMS without
 * the signer, checked as the signer checks it; SOL refused where the sync and the Solana poller have no chain.
 */
const publicKey = ed25519.getPublicKey(new Uint8Array(32).fill(7));

/** A KMS client answering GetPublicKey with `answer` (and recording the key asked for). */
function kmsAnswering(answer: Record<string, unknown>): { client: KMSClient; asked: unknown[] } {
  const asked: unknown[] = [];
  const client = {
    send: async (command: { input: unknown }) => {
      asked.push(command.input);
      return answer;
    },
  } as unknown as KMSClient;
  return { client, asked };
}

describe('the SOL address of a KMS key', () => {
  it('is the base58 of the Ed25519 public key KMS returns as a SubjectPublicKeyInfo', async () => {
    const { client, asked } = kmsAnswering({ KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY', PublicKey: encodeEd25519Spki(publicKey) });
    expect(await kmsEd25519Address(client, 'key-1')).toBe(encodeSolanaAddress(publicKey));
    expect(await new KmsEd25519Signer(client, 'key-1').getAddress()).toBe(encodeSolanaAddress(publicKey));
    expect(asked).toEqual([{ KeyId: 'key-1' }, { KeyId: 'key-1' }]);
  });

  it.each([
    ['another key spec', { KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY', PublicKey: encodeEd25519Spki(publicKey) }, /spec ECC_SECG_P256K1/],
    ['another usage', { KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'ENCRYPT_DECRYPT', PublicKey: encodeEd25519Spki(publicKey) }, /usage ENCRYPT_DECRYPT/],
    ['no public key', { KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY' }, /no public key/],
    ['not an Ed25519 SubjectPublicKeyInfo', { KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY', PublicKey: publicKey }, /unusable public key/],
  ])('is refused for %s, as the signer refuses it', async (_case, answer, message) => {
    const refusal = { name: 'KmsEd25519SignerError', code: 'KMS_KEY_UNSUITABLE', message: expect.stringMatching(message) };
    await expect(kmsEd25519Address(kmsAnswering(answer).client, 'key-1')).rejects.toMatchObject(refusal);
    await expect(new KmsEd25519Signer(kmsAnswering(answer).client, 'key-1').getAddress()).rejects.toMatchObject(refusal);
  });

  it("keeps the SubjectPublicKeyInfo parser's reason as the cause of an unusable public key", async () => {
    const answer = { KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY', PublicKey: publicKey };
    await expect(kmsEd25519Address(kmsAnswering(answer).client, 'key-1')).rejects.toMatchObject({
      cause: expect.objectContaining({ message: expect.stringMatching(/SubjectPublicKeyInfo/) }),
    });
  });
});

describe('the built-in provider of the custody Lambda', () => {
  const base = { TABLE_NAME: 't', STAGE: 'local' };

  it('refuses SOL without SOLANA_RPC_URL, and without a USDTSOL mint, as unsupported (no key is made)', async () => {
    const mint = JSON.stringify({ USDTSOL: encodeSolanaAddress(new Uint8Array(32).fill(9)) });
    for (const env of [{ TOKEN_CONTRACTS: mint }, { SOLANA_RPC_URL: 'http://127.0.0.1:9/' }]) {
      const provider = builtinProvider(parseConfig({ ...base, ...env }));
      await expect(provider.depositAddress('t1', 'a1', 'SOL')).rejects.toMatchObject({ code: 'unsupported_blockchain' });
    }
  });

  it('refuses a chain without a forwarder factory, and TRX without the forwarder implementation', async () => {
    const provider = builtinProvider(parseConfig({ ...base, FORWARDER_FACTORIES: JSON.stringify({ TRX: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' }) }));
    for (const chain of ['ETH', 'BSC', 'TRX'] as const) {
      await expect(provider.depositAddress('t1', 'a1', chain)).rejects.toMatchObject({ code: 'unsupported_blockchain' });
    }
  });
});
