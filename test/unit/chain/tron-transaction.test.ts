import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { TronWeb, utils as tronUtils } from 'tronweb';
import { toTronBase58, tronAddressToBytes } from '../../../shared/domain/chain-addresses.js';
import type { TronContract } from '../../../shared/chain/tron/transaction.js';
import {
  buildTronTransaction,
  parseTronTransaction,
  recoverTronSigner,
  refBlockBytes,
  signedTronTransactionHex,
} from '../../../shared/chain/tron/transaction.js';

const PRIVATE_KEY = '8e812436a0e3323166e1f0e8ba79e19e217b2c4a53c970d4cca0cfb1078979df';
const OWNER = TronWeb.address.fromPrivateKey(PRIVATE_KEY) as string;
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TO = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const REF = { number: 61_840_405, id: `0000000003af9c15${'ab'.repeat(24)}` };

const hex41 = (a: string): string => bytesToHex(tronAddressToBytes(a));
const tronwebTx = tronUtils.transaction as unknown as {
  txJsonToPb(tx: unknown): unknown;
  txPbToRawDataHex(pb: unknown): string;
  txPbToTxID(pb: unknown): string;
};

/** The same transaction as tronweb's JSON form, encoded by tronweb's own protobuf code. */
function tronwebEncoding(contract: TronContract, fields: { expiration: number; timestamp: number; feeLimit: bigint }) {
  const ref = refBlockBytes(REF);
  const parameter =
    contract.kind === 'transfer'
      ? {
          value: { owner_address: hex41(contract.owner), to_address: hex41(contract.to), amount: Number(contract.amount) },
          type_url: 'type.googleapis.com/protocol.TransferContract',
        }
      : {
          value: {
            owner_address: hex41(contract.owner),
            contract_address: hex41(contract.contract),
            data: contract.data.slice(2),
            ...(contract.callValue > 0n ? { call_value: Number(contract.callValue) } : {}),
          },
          type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
        };
  const json = {
    visible: false,
    raw_data: {
      contract: [{ parameter, type: contract.kind === 'transfer' ? 'TransferContract' : 'TriggerSmartContract' }],
      ref_block_bytes: bytesToHex(ref.bytes),
      ref_block_hash: bytesToHex(ref.hash),
      expiration: fields.expiration,
      timestamp: fields.timestamp,
      ...(fields.feeLimit > 0n ? { fee_limit: Number(fields.feeLimit) } : {}),
    },
  };
  const pb = tronwebTx.txJsonToPb(json);
  return { rawDataHex: tronwebTx.txPbToRawDataHex(pb).toLowerCase(), txID: tronwebTx.txPbToTxID(pb).replace(/^0x/, '').toLowerCase() };
}

function sign(txID: string): Uint8Array {
  const sig = secp256k1.sign(hexToBytes(txID), hexToBytes(PRIVATE_KEY), { prehash: false, format: 'recovered' });
  // noble: recovery byte first; TRON: r ‖ s ‖ (27 + recovery)
  return concatBytes(sig.subarray(1), Uint8Array.of((sig[0] as number) + 27));
}

describe('TRON transactions (checked against tronweb)', () => {
  const fields = { expiration: 1_700_000_060_000, timestamp: 1_700_000_000_123, feeLimit: 30_000_000n };
  const cases: [string, TronContract][] = [
    [
      'a TRC-20 transfer (TriggerSmartContract)',
      {
        kind: 'trigger',
        owner: OWNER,
        contract: USDT,
        callValue: 0n,
        data: `0xa9059cbb${'0'.repeat(24)}${hex41(TO).slice(2)}${25_000_000n.toString(16).padStart(64, '0')}`,
      },
    ],
    ['a call with a value', { kind: 'trigger', owner: OWNER, contract: USDT, callValue: 1_000_000n, data: '0x12345678' }],
    ['a TRX transfer (TransferContract)', { kind: 'transfer', owner: OWNER, to: TO, amount: 1_234_567n }],
  ];

  it.each(cases)("%s: raw data and txID equal tronweb's encoding", (_name, contract) => {
    const feeLimit = contract.kind === 'trigger' ? fields.feeLimit : 0n;
    const ours = buildTronTransaction({ refBlock: REF, expiration: fields.expiration, timestamp: fields.timestamp, feeLimit, contract });
    expect(ours).toEqual(tronwebEncoding(contract, { ...fields, feeLimit }));
  });

  it('ref block: bytes 6..8 of the number and bytes 8..16 of the block id', () => {
    const ref = refBlockBytes(REF);
    expect(bytesToHex(ref.bytes)).toBe('9c15');
    expect(bytesToHex(ref.hash)).toBe('ab'.repeat(8));
  });

  it('signs, serialises and parses back; the signature recovers to the owner', () => {
    const contract = cases[0]![1];
    const unsigned = buildTronTransaction({ refBlock: REF, ...fields, contract });
    const signature = sign(unsigned.txID);
    const parsed = parseTronTransaction(signedTronTransactionHex(unsigned, signature));
    expect(parsed.txID).toBe(unsigned.txID);
    expect(parsed.expiration).toBe(fields.expiration);
    expect(parsed.timestamp).toBe(fields.timestamp);
    expect(parsed.feeLimit).toBe(fields.feeLimit);
    expect(parsed.contract).toEqual({ ...contract, owner: toTronBase58(OWNER), contract: USDT });
    expect(recoverTronSigner(parsed.txID, parsed.signatures[0]!)).toBe(OWNER);
    // tronweb's own signature of the same id is the same (RFC 6979, low s)
    const theirs = tronUtils.crypto.ECKeySign(hexToBytes(unsigned.txID), hexToBytes(PRIVATE_KEY) as unknown as number[]);
    expect(theirs.toLowerCase()).toBe(bytesToHex(signature));
  });

  it('a different signer does not recover to the owner; a changed byte changes the txID', () => {
    const unsigned = buildTronTransaction({ refBlock: REF, ...fields, contract: cases[2]![1] });
    const other = secp256k1.sign(hexToBytes(unsigned.txID), secp256k1.utils.randomSecretKey(), { prehash: false, format: 'recovered' });
    expect(recoverTronSigner(unsigned.txID, concatBytes(other.subarray(1), Uint8Array.of((other[0] as number) + 27)))).not.toBe(OWNER);
    const later = buildTronTransaction({ refBlock: REF, ...fields, expiration: fields.expiration + 1, contract: cases[2]![1] });
    expect(later.txID).not.toBe(unsigned.txID);
  });

  it('refuses a zero TRX transfer and a malformed signature', () => {
    expect(() => buildTronTransaction({ refBlock: REF, ...fields, contract: { kind: 'transfer', owner: OWNER, to: TO, amount: 0n } })).toThrow(RangeError);
    const unsigned = buildTronTransaction({ refBlock: REF, ...fields, contract: cases[2]![1] });
    expect(() => signedTronTransactionHex(unsigned, new Uint8Array(64))).toThrow(TypeError);
  });
});
