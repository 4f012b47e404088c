import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { TronWeb } from 'tronweb';
import { TronGridChain } from '../../../shared/chain/engine/tron.js';
import type { TronGridClient } from '../../../shared/chain/tron/grid.js';
import { parseTronTransaction, recoverTronSigner, signedTronTransactionHex } from '../../../shared/chain/tron/transaction.js';
import { tronAddressToEvmHex } from '../../../shared/domain/chain-addresses.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import type { ChainTxDeps, TronSignerPort, UnsignedTronTx } from '../../../shared/usecases/chain-tx/ports.js';
import { signTronAttempt } from '../../../shared/usecases/chain-tx/tron.js';

const PRIVATE_KEY = '8e812436a0e3323166e1f0e8ba79e19e217b2c4a53c970d4cca0cfb1078979df';
const OWNER = TronWeb.address.fromPrivateKey(PRIVATE_KEY) as string;
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TO = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const HEAD = { number: 61_840_405, id: `0000000003af9c15${'ab'.repeat(24)}`, timestamp: Date.parse('2026-01-01T00:00:00Z') };
const NOW = new Date('2026-01-01T00:00:02Z');

/** Signs locally as the KMS signer does: secp256k1 over the id, 65 bytes r ‖ s ‖ v. */
const localSigner: TronSignerPort = {
  async sign(_keyId: string, tx: UnsignedTronTx) {
    const compact = secp256k1.sign(hexToBytes(tx.txID), hexToBytes(PRIVATE_KEY), { prehash: false, format: 'recovered' });
    const signature = new Uint8Array(65);
    signature.set(compact.subarray(1), 0);
    signature[64] = 27 + (compact[0] as number);
    return { hash: tx.txID, raw: signedTronTransactionHex(tx, signature) };
  },
};

/** The TronGrid adapter, its head fixed: building is offline (no call reaches the client). */
const chain = Object.assign(new TronGridChain({} as TronGridClient), { head: async () => HEAD });

const deps = (signer: TronSignerPort = localSigner): ChainTxDeps =>
  ({
    tron: { chain: () => chain, signer, expirationSeconds: 60, feeLimit: 50_000_000n },
    clock: () => NOW,
  }) as unknown as ChainTxDeps;

const request = (fields: Partial<ChainTx>): ChainTx => ({
  requestId: 'TRX:w-1',
  network: 'TRX',
  reference: 'w-1',
  purpose: 'withdrawal',
  tenantId: 't1',
  wallet: { keyId: 'k', address: tronAddressToEvmHex(OWNER) },
  to: tronAddressToEvmHex(TO),
  data: '0x',
  value: 5n,
  status: 'queued',
  attempts: [],
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
  version: 1,
  ...fields,
});

describe('a TRON attempt: built by the chain port, signed by the signer port', () => {
  test('a bare value is a TRX transfer pinned to the head, expiring after the configured lifetime, no fee limit', async () => {
    const attempt = await signTronAttempt(request({}), chain, deps());
    const parsed = parseTronTransaction(attempt.raw);
    expect(parsed.contract).toEqual({ kind: 'transfer', owner: OWNER, to: TO, amount: 5n });
    expect(parsed.txID).toBe(attempt.hash);
    expect(parsed.expiration).toBe(HEAD.timestamp + 60_000);
    expect(parsed.timestamp).toBe(NOW.getTime());
    expect(parsed.feeLimit).toBe(0n);
    expect(parsed.refBlockHash).toBe(HEAD.id.slice(16, 32));
    expect(recoverTronSigner(parsed.txID, parsed.signatures[0] as Uint8Array)).toBe(OWNER);
    expect(attempt).toMatchObject({ fees: { type: 'tron', feeLimit: 0n }, expiresAt: new Date(HEAD.timestamp + 60_000).toISOString() });
  });

  test("call data is a contract call with the request's gas limit as its fee limit (else the configured one)", async () => {
    const data = `0xa9059cbb${'00'.repeat(12)}${tronAddressToEvmHex(TO).slice(2)}${7n.toString(16).padStart(64, '0')}`;
    const call = request({ to: tronAddressToEvmHex(USDT), data, value: 0n });
    const limited = parseTronTransaction((await signTronAttempt({ ...call, gasLimit: 30_000_000n }, chain, deps())).raw);
    expect(limited.contract).toEqual({ kind: 'trigger', owner: OWNER, contract: USDT, callValue: 0n, data });
    expect(limited.feeLimit).toBe(30_000_000n);
    expect(parseTronTransaction((await signTronAttempt(call, chain, deps())).raw).feeLimit).toBe(50_000_000n);
  });

  test('a signature of another transaction is refused, never persisted as this attempt', async () => {
    const wrong: TronSignerPort = {
      sign: async (keyId, tx) => localSigner.sign(keyId, { ...tx, txID: bytesToHex(new Uint8Array(32)) }),
    };
    await expect(signTronAttempt(request({}), chain, deps(wrong))).rejects.toThrow(/the signer returned/);
  });

  test('the chain port builds the same bytes for the same spec, and another id for another expiration', async () => {
    const spec = {
      call: { kind: 'transfer', owner: tronAddressToEvmHex(OWNER), to: tronAddressToEvmHex(TO), amount: 1n },
      refBlock: HEAD,
      expiration: HEAD.timestamp + 60_000,
      timestamp: NOW.getTime(),
      feeLimit: 0n,
    } as const;
    const built = chain.build(spec);
    expect(chain.build(spec)).toEqual(built);
    expect(parseTronTransaction((await localSigner.sign('k', built)).raw)).toMatchObject({ txID: built.txID, rawDataHex: built.rawDataHex });
    expect(chain.build({ ...spec, expiration: spec.expiration + 1 }).txID).not.toBe(built.txID);
  });
});
