import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateKeyCommand, GetPublicKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { startKmsServer, type KmsServer } from '../../../infra/local/kms/server.js';
import { parseConfig } from '../../../shared/config/config.js';
import { compressPoint } from '../../../shared/chain/btc/hot-key.js';
import { depositAddress, depositTag } from '../../../shared/chain/btc/p2wsh.js';
import { parseSecp256k1Spki } from '../../../shared/chain/signer/der.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { paymentRoutes } from '../../../functions/payments/routes.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { caller, putFixedRates, tenantWithToken } from '../payments/support.js';

/**
 * BTC payments get P2WSH deposit addresses over the hot wallet's KMS key (the local KMS-compatible server), through
 * the payments API on DynamoDB Local: the address is the one p2wsh.ts computes from (tenant, payment) and the key's
 * compressed public key, `bcrt1` on the local network, a new one per payment, indexed for the scanner under the
 * `btc` family, and the payment's salt is its tag.
 */
let table: TestTable;
let kmsServer: KmsServer;
let dataDir: string;
let hotKey: Uint8Array;
let keyId: string;

beforeAll(async () => {
  table = await startTestTable('btc-addresses-test');
  dataDir = await mkdtemp(join(tmpdir(), 'kms-btc-'));
  kmsServer = await startKmsServer({ host: '127.0.0.1', port: 0, dataDir });
  process.env.AWS_ENDPOINT_URL_KMS = kmsServer.url;
  const kms = new KMSClient({ endpoint: kmsServer.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const made = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
  keyId = made.KeyMetadata?.KeyId ?? '';
  const spki = (await kms.send(new GetPublicKeyCommand({ KeyId: keyId }))).PublicKey;
  hotKey = compressPoint(parseSecp256k1Spki(spki ?? new Uint8Array()));
  kms.destroy();
  await putFixedRates();
});

afterAll(async () => {
  delete process.env.AWS_ENDPOINT_URL_KMS;
  await kmsServer?.close();
  await table?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const api = (env: Record<string, string>) => createApi(paymentRoutes, paymentsRuntime(parseConfig({ ...process.env, ...env })));

describe('BTC deposit addresses', () => {
  it('compresses the KMS key as secp256k1 does', () => {
    const priv = secp256k1.utils.randomSecretKey();
    expect(bytesToHex(compressPoint(secp256k1.getPublicKey(priv, false)))).toBe(bytesToHex(secp256k1.getPublicKey(priv, true)));
  });

  it('a BTC payment gets the P2WSH address of its tag and the hot key, indexed for the scanner; each payment its own', async () => {
    const t = await tenantWithToken('BTC addresses');
    const call = caller(api({ BTC_API_URL: 'http://127.0.0.1:9/', HOT_WALLET_KEY_ID: keyId }), () => t.bearer);
    const first = await call('POST', '/payments/', { body: { amount: '60', currency: 'BTC' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ blockchain: 'BTC', currency: 'BTC', status: 'waiting', amount_crypto: '0.00100000' });
    const expected = depositAddress(t.tenantId, first.body.transaction_id, hotKey, 'local');
    expect(first.body.address).toBe(expected.address);
    expect(first.body.address).toMatch(/^bcrt1q[02-9ac-hj-np-z]{58}$/);

    const stored = await dynamoPayments.get(t.tenantId, first.body.transaction_id);
    expect(stored?.salt).toBe(bytesToHex(depositTag(t.tenantId, first.body.transaction_id)));
    expect(await dynamoPayments.matchAddresses('btc', [first.body.address.toUpperCase()])).toEqual([
      expect.objectContaining({ address: first.body.address, tenantId: t.tenantId, paymentId: first.body.transaction_id, currency: 'BTC' }),
    ]);

    const second = await call('POST', '/payments/', { body: { amount: '60', currency: 'BTC' } });
    expect(second.status).toBe(201);
    expect(second.body.address).not.toBe(first.body.address);
    expect(second.body.address).toBe(depositAddress(t.tenantId, second.body.transaction_id, hotKey, 'local').address);
  });

  it('the network is configuration: tb1 on a test network, bc1 in production', async () => {
    const t = await tenantWithToken('BTC networks');
    for (const [network, prefix] of [
      ['testnet', 'tb1q'],
      ['mainnet', 'bc1q'],
    ] as const) {
      const call = caller(api({ BTC_API_URL: 'http://127.0.0.1:9/', HOT_WALLET_KEY_ID: keyId, BTC_NETWORK: network }), () => t.bearer);
      const res = await call('POST', '/payments/', { body: { amount: '60', currency: 'BTC' } });
      expect(res.status).toBe(201);
      expect(res.body.address.startsWith(prefix)).toBe(true);
      expect(res.body.address).toBe(depositAddress(t.tenantId, res.body.transaction_id, hotKey, network).address);
    }
  });

  it('without the Esplora API BTC is refused as a currency this deployment does not serve', async () => {
    const t = await tenantWithToken('BTC off');
    const call = caller(api({ HOT_WALLET_KEY_ID: keyId }), () => t.bearer);
    const res = await call('POST', '/payments/', { body: { amount: '60', currency: 'BTC' } });
    expect([res.status, res.body.code ?? res.body.error?.code]).toEqual([422, 'invalid_currency']);
  });
});
