import { CreateKeyCommand, GetPublicKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { startKmsServer } from '../../infra/local/kms/server.js';
import { compressPoint } from '../../shared/chain/btc/hot-key.js';
import { parseSecp256k1Spki } from '../../shared/chain/signer/der.js';

export interface HotWalletKey {
  /** `HOT_WALLET_KEY_ID` of a deployment whose hot wallet is this key. */
  readonly keyId: string;
  /** Its compressed public key (33 bytes): what BTC deposit addresses pay to. */
  readonly publicKey: Uint8Array;
  close(): Promise<void>;
}

/**
 * The hot wallet's ECC_SECG_P256K1 key on the local KMS-compatible server (keys in memory), with the SDK pointed at
 * it (`AWS_ENDPOINT_URL_KMS`) until `close`: BTC payments made through the payments API get their P2WSH addresses
 * over it, as in production.
 */
export async function startHotWalletKey(): Promise<HotWalletKey> {
  const server = await startKmsServer({ host: '127.0.0.1', port: 0 });
  process.env.AWS_ENDPOINT_URL_KMS = server.url;
  const kms = new KMSClient({ endpoint: server.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    const made = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
    const keyId = made.KeyMetadata?.KeyId ?? '';
    const spki = (await kms.send(new GetPublicKeyCommand({ KeyId: keyId }))).PublicKey;
    const publicKey = compressPoint(parseSecp256k1Spki(spki ?? new Uint8Array()));
    return {
      keyId,
      publicKey,
      close: async () => {
        delete process.env.AWS_ENDPOINT_URL_KMS;
        await server.close();
      },
    };
  } finally {
    kms.destroy();
  }
}
