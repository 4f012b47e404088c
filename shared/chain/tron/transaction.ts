/**
 * TRON transactions, built and parsed offline (pure; @noble only). java-tron's `protocol.Transaction`
 * (core/Tron.proto) in the subset the gateway sends: one `TransferContract` (TRX) or one `TriggerSmartContract`
 * (a contract call: TRC-20 transfer, factory sweep) per transaction.
 *
 *   Transaction { raw raw_data = 1; repeated bytes signature = 2; }
 *   raw { bytes ref_block_bytes = 1; bytes ref_block_hash = 4; int64 expiration = 8; repeated Contract contract = 11;
 *         int64 timestamp = 14; int64 fee_limit = 18; }
 *   Contract { ContractType type = 1; google.protobuf.Any parameter = 2; }      TransferContract = 1, TriggerSmartContract = 31
 *   TransferContract { bytes owner_address = 1; bytes to_address = 2; int64 amount = 3; }
 *   TriggerSmartContract { bytes owner_address = 1; bytes contract_address = 2; int64 call_value = 3; bytes data = 4; }
 *
 * The transaction id is sha256(raw_data); the signature is secp256k1 over that id, 65 bytes r ‖ s ‖ v (v = 27 + recovery
 * id, as tronweb writes it). TRON has no nonces: `ref_block_*` pins the transaction to a recent block and `expiration`
 * (ms) bounds when it can be included, so the same raw data is the same transaction, and an expired one can never be.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { TRON_ADDRESS_PREFIX, tronAddressFromBytes, tronAddressToBytes } from '../../domain/chain-addresses.js';
import type { TronCall, UnsignedTronTx } from '../../usecases/chain-tx/ports.js';

const TRANSFER_CONTRACT = 1;
const TRIGGER_SMART_CONTRACT = 31;
const TYPE_URL = {
  [TRANSFER_CONTRACT]: 'type.googleapis.com/protocol.TransferContract',
  [TRIGGER_SMART_CONTRACT]: 'type.googleapis.com/protocol.TriggerSmartContract',
} as const;

// --- protobuf wire format (varint = 0, length-delimited = 2) -------------------------------------------------

function varint(value: bigint): Uint8Array {
  if (value < 0n) throw new RangeError('negative varint');
  const out: number[] = [];
  let v = value;
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return Uint8Array.from(out);
}

const tag = (field: number, wire: 0 | 2): Uint8Array => varint(BigInt((field << 3) | wire));
const int64Field = (field: number, value: bigint): Uint8Array => (value === 0n ? new Uint8Array() : concatBytes(tag(field, 0), varint(value)));
const bytesField = (field: number, value: Uint8Array): Uint8Array =>
  value.length === 0 ? new Uint8Array() : concatBytes(tag(field, 2), varint(BigInt(value.length)), value);

interface WireField {
  readonly field: number;
  readonly wire: number;
  readonly int?: bigint;
  readonly bytes?: Uint8Array;
}

function readFields(buf: Uint8Array): WireField[] {
  const out: WireField[] = [];
  let i = 0;
  const readVarint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (i >= buf.length) throw new TypeError('truncated protobuf varint');
      const b = buf[i++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new TypeError('protobuf varint too long');
    }
  };
  while (i < buf.length) {
    const key = Number(readVarint());
    const field = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ field, wire, int: readVarint() });
    else if (wire === 2) {
      const length = Number(readVarint());
      if (i + length > buf.length) throw new TypeError('truncated protobuf field');
      out.push({ field, wire, bytes: buf.subarray(i, i + length) });
      i += length;
    } else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw new TypeError(`unsupported protobuf wire type ${wire}`);
  }
  return out;
}

const first = (fields: readonly WireField[], field: number): WireField | undefined => fields.find((f) => f.field === field);
const intOf = (fields: readonly WireField[], field: number): bigint => first(fields, field)?.int ?? 0n;
const bytesOf = (fields: readonly WireField[], field: number): Uint8Array => first(fields, field)?.bytes ?? new Uint8Array();

// --- building ---------------------------------------------------------------------------------------------------

/** The block a transaction refers to (TAPOS): a recent block's number and id (64 hex digits). */
export interface RefBlock {
  readonly number: number;
  readonly id: string;
}

/** The one contract of a transaction: the engine's `TronCall` (a TRX transfer or a contract call). */
export type TronContract = TronCall;

export interface TronTxFields {
  readonly refBlock: RefBlock;
  /** Milliseconds since the epoch; the transaction cannot be included in a block at or after it. */
  readonly expiration: number;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  /** Most sun the call may burn for energy (contract calls only). */
  readonly feeLimit?: bigint;
  readonly contract: TronContract;
}

function contractBytes(contract: TronContract): Uint8Array {
  if (contract.kind === 'transfer') {
    if (contract.amount <= 0n) throw new RangeError('a TRX transfer moves a positive amount');
    const value = concatBytes(
      bytesField(1, tronAddressToBytes(contract.owner)),
      bytesField(2, tronAddressToBytes(contract.to)),
      int64Field(3, contract.amount),
    );
    const any = concatBytes(bytesField(1, utf8ToBytes(TYPE_URL[TRANSFER_CONTRACT])), bytesField(2, value));
    return concatBytes(int64Field(1, BigInt(TRANSFER_CONTRACT)), bytesField(2, any));
  }
  const value = concatBytes(
    bytesField(1, tronAddressToBytes(contract.owner)),
    bytesField(2, tronAddressToBytes(contract.contract)),
    int64Field(3, contract.callValue),
    bytesField(4, hexToBytes(contract.data.replace(/^0x/, ''))),
  );
  const any = concatBytes(bytesField(1, utf8ToBytes(TYPE_URL[TRIGGER_SMART_CONTRACT])), bytesField(2, value));
  return concatBytes(int64Field(1, BigInt(TRIGGER_SMART_CONTRACT)), bytesField(2, any));
}

/** ref_block_bytes: bytes 6..8 of the 8-byte big-endian block number; ref_block_hash: bytes 8..16 of the block id. */
export function refBlockBytes(ref: RefBlock): { bytes: Uint8Array; hash: Uint8Array } {
  const number = new Uint8Array(8);
  new DataView(number.buffer).setBigUint64(0, BigInt(ref.number));
  const id = hexToBytes(ref.id.replace(/^0x/, ''));
  if (id.length !== 32) throw new TypeError('a block id is 32 bytes');
  return { bytes: number.subarray(6, 8), hash: id.subarray(8, 16) };
}

export function buildTronTransaction(fields: TronTxFields): UnsignedTronTx {
  const ref = refBlockBytes(fields.refBlock);
  const raw = concatBytes(
    bytesField(1, ref.bytes),
    bytesField(4, ref.hash),
    int64Field(8, BigInt(fields.expiration)),
    bytesField(11, contractBytes(fields.contract)),
    int64Field(14, BigInt(fields.timestamp)),
    int64Field(18, fields.feeLimit ?? 0n),
  );
  return { txID: bytesToHex(sha256(raw)), rawDataHex: bytesToHex(raw) };
}

/** The signed `Transaction` as hex (what `/wallet/broadcasthex` takes). `signature`: 65 bytes r ‖ s ‖ v. */
export function signedTronTransactionHex(tx: UnsignedTronTx, signature: Uint8Array): string {
  if (signature.length !== 65) throw new TypeError('a TRON signature is 65 bytes');
  return bytesToHex(concatBytes(bytesField(1, hexToBytes(tx.rawDataHex)), bytesField(2, signature)));
}

// --- parsing (the local TronGrid-compatible server, tests) ------------------------------------------------------

export interface ParsedTronTx {
  readonly txID: string;
  readonly rawDataHex: string;
  readonly refBlockBytes: string;
  readonly refBlockHash: string;
  readonly expiration: number;
  readonly timestamp: number;
  readonly feeLimit: bigint;
  /** Base58Check addresses; `data` as 0x-hex. */
  readonly contract: TronContract;
  readonly signatures: readonly Uint8Array[];
}

function parseContract(bytes: Uint8Array): TronContract {
  const fields = readFields(bytes);
  const type = Number(intOf(fields, 1));
  const any = readFields(bytesOf(fields, 2));
  const value = readFields(bytesOf(any, 2));
  const address = (field: number): string => tronAddressFromBytes(bytesOf(value, field));
  if (type === TRANSFER_CONTRACT) return { kind: 'transfer', owner: address(1), to: address(2), amount: intOf(value, 3) };
  if (type === TRIGGER_SMART_CONTRACT)
    return { kind: 'trigger', owner: address(1), contract: address(2), callValue: intOf(value, 3), data: `0x${bytesToHex(bytesOf(value, 4))}` };
  throw new TypeError(`unsupported TRON contract type ${type}`);
}

/** Parses a signed `Transaction` (hex) as built above. */
export function parseTronTransaction(hex: string): ParsedTronTx {
  const fields = readFields(hexToBytes(hex.replace(/^0x/, '')));
  const raw = bytesOf(fields, 1);
  const rawFields = readFields(raw);
  const contracts = rawFields.filter((f) => f.field === 11);
  if (contracts.length !== 1 || !contracts[0]?.bytes) throw new TypeError('a transaction carries exactly one contract');
  return {
    txID: bytesToHex(sha256(raw)),
    rawDataHex: bytesToHex(raw),
    refBlockBytes: bytesToHex(bytesOf(rawFields, 1)),
    refBlockHash: bytesToHex(bytesOf(rawFields, 4)),
    expiration: Number(intOf(rawFields, 8)),
    timestamp: Number(intOf(rawFields, 14)),
    feeLimit: intOf(rawFields, 18),
    contract: parseContract(contracts[0].bytes),
    signatures: fields.filter((f) => f.field === 2).map((f) => f.bytes ?? new Uint8Array()),
  };
}

/** The TRON address (Base58Check) whose key made `signature` (65 bytes, v 27/28 or 0/1) over `txID`. */
export function recoverTronSigner(txID: string, signature: Uint8Array): string {
  if (signature.length !== 65) throw new TypeError('a TRON signature is 65 bytes');
  const v = signature[64] as number;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) throw new TypeError('bad recovery id');
  const compact = concatBytes(Uint8Array.of(recovery), signature.subarray(0, 64));
  const point = secp256k1.recoverPublicKey(compact, hexToBytes(txID), { prehash: false });
  const uncompressed = secp256k1.Point.fromBytes(point).toBytes(false);
  return tronAddressFromBytes(concatBytes(Uint8Array.of(TRON_ADDRESS_PREFIX), keccak_256(uncompressed.subarray(1)).subarray(12)));
}
