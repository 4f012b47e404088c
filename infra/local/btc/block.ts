/**
 * Bitcoin's wire forms for the local node: parsed transactions (ids, sizes, weights), 80-byte block headers,
 * merkle roots, coinbases (BIP34 height, BIP141 witness commitment) and the regtest genesis block, byte for byte
 * as bitcoind builds it (its hash is regtest's `0f9188f1...2206`).
 */
import { concatBytes } from '@noble/hashes/utils.js';
import { RawTx } from '@scure/btc-signer';
import { merkleRoot } from '../../../shared/chain/btc/block.js';

/** The merkle root of internal-order hashes: the gateway's own reading of it (shared/chain/btc/block.ts). */
export { merkleRoot };
import { sha256x2 } from '@scure/btc-signer/utils.js';

/** Regtest's proof-of-work limit, the `bits` of every local block (no grinding: the node never checks work). */
export const REGTEST_BITS = 0x207fffff;
export const COINBASE_MATURITY = 100;
export const MAX_SEQUENCE = 0xffffffff;

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
/** A hash shown as Bitcoin shows it: the bytes reversed, as hex. */
export const displayHash = (b: Uint8Array): string => hex(Uint8Array.from(b).reverse());
export const internalHash = (display: string): Uint8Array => Uint8Array.from(Buffer.from(display, 'hex')).reverse();

export interface TxInput {
  /** The spent output's transaction id, display order. */
  readonly txid: string;
  readonly vout: number;
  readonly scriptSig: Uint8Array;
  readonly sequence: number;
  readonly witness: readonly Uint8Array[];
}

export interface TxOutput {
  readonly value: bigint;
  readonly script: Uint8Array;
}

/** A parsed transaction with what the API shows of it. */
export interface BtcTx {
  readonly txid: string;
  readonly wtxid: string;
  readonly version: number;
  readonly lockTime: number;
  readonly inputs: readonly TxInput[];
  readonly outputs: readonly TxOutput[];
  /** The full serialization (with witnesses when it has any). */
  readonly raw: Uint8Array;
  readonly size: number;
  readonly weight: number;
  readonly vsize: number;
  readonly coinbase: boolean;
}

const COINBASE_TXID = '0'.repeat(64);

/** Parses a serialized transaction; throws on bytes that are not exactly one transaction. */
export function parseTx(raw: Uint8Array): BtcTx {
  const t = RawTx.decode(raw);
  const inputs = t.inputs.map((i, n) => ({
    txid: hex(i.txid),
    vout: i.index,
    scriptSig: i.finalScriptSig,
    sequence: i.sequence,
    witness: t.witnesses?.[n] ?? [],
  }));
  const outputs = t.outputs.map((o) => ({ value: o.amount, script: o.script }));
  const stripped = RawTx.encode({ ...t, segwitFlag: false, witnesses: undefined });
  const full = Uint8Array.from(raw);
  const weight = stripped.length * 3 + full.length;
  return {
    txid: displayHash(sha256x2(stripped)),
    wtxid: displayHash(sha256x2(full)),
    version: t.version,
    lockTime: t.lockTime,
    inputs,
    outputs,
    raw: full,
    size: full.length,
    weight,
    vsize: Math.ceil(weight / 4),
    coinbase: inputs.length === 1 && inputs[0]?.txid === COINBASE_TXID && inputs[0].vout === MAX_SEQUENCE,
  };
}

/** Serializes a transaction from its parts (the segwit form when any input has a witness). */
export function serializeTx(version: number, inputs: readonly TxInput[], outputs: readonly TxOutput[], lockTime: number): Uint8Array {
  const segwit = inputs.some((i) => i.witness.length > 0);
  return RawTx.encode({
    version,
    segwitFlag: segwit,
    inputs: inputs.map((i) => ({ txid: Buffer.from(i.txid, 'hex'), index: i.vout, finalScriptSig: i.scriptSig, sequence: i.sequence })),
    outputs: outputs.map((o) => ({ amount: o.value, script: o.script })),
    witnesses: segwit ? inputs.map((i) => [...i.witness]) : undefined,
    lockTime,
  });
}

export interface HeaderFields {
  readonly version: number;
  /** Internal byte order. */
  readonly prevHash: Uint8Array;
  readonly merkleRoot: Uint8Array;
  readonly time: number;
  readonly bits: number;
  readonly nonce: number;
}

export function encodeHeader(h: HeaderFields): Uint8Array {
  const out = new Uint8Array(80);
  const view = new DataView(out.buffer);
  view.setInt32(0, h.version, true);
  out.set(h.prevHash, 4);
  out.set(h.merkleRoot, 36);
  view.setUint32(68, h.time, true);
  view.setUint32(72, h.bits, true);
  view.setUint32(76, h.nonce, true);
  return out;
}

/** Difficulty of `bits` relative to the proof-of-work limit `0x1d00ffff`, as bitcoind computes it. */
export function difficulty(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let diff = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    diff *= 256;
    shift++;
  }
  while (shift > 29) {
    diff /= 256;
    shift--;
  }
  return diff;
}

/** Bitcoin's compact-size integer. */
export function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
}

/** A script number push (BIP34's height in the coinbase). */
export function scriptNumPush(n: number): Uint8Array {
  if (n === 0) return Uint8Array.of(0x00);
  if (n >= 1 && n <= 16) return Uint8Array.of(0x50 + n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.push(v & 0xff);
  if (((bytes[bytes.length - 1] as number) & 0x80) !== 0) bytes.push(0);
  return Uint8Array.of(bytes.length, ...bytes);
}

/** Regtest's block subsidy: 50 BTC halving every 150 blocks. */
export function subsidy(height: number): bigint {
  const halvings = Math.floor(height / 150);
  return halvings >= 64 ? 0n : 5_000_000_000n >> BigInt(halvings);
}

/** BIP141's witness commitment output script for the block's wtxids (the coinbase's own counted as zero). */
export function witnessCommitmentScript(wtxids: readonly Uint8Array[]): Uint8Array {
  const root = merkleRoot([new Uint8Array(32), ...wtxids]);
  return concatBytes(Uint8Array.of(0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed), sha256x2(concatBytes(root, new Uint8Array(32))));
}

/**
 * A coinbase at `height` paying `value` to `script`, with the witness commitment when `wtxids` is given. `extra`
 * (an extra nonce) makes a block at a height already mined once differ from the first (after a reorg).
 */
export function coinbaseTx(height: number, value: bigint, script: Uint8Array, wtxids?: readonly Uint8Array[], extra = 0): BtcTx {
  const outputs: TxOutput[] = [{ value, script }];
  if (wtxids) outputs.push({ value: 0n, script: witnessCommitmentScript(wtxids) });
  // BIP34 height, then the extra nonce, which also makes the script at least 2 bytes long (bad-cb-length otherwise).
  const scriptSig = concatBytes(scriptNumPush(height), scriptNumPush(extra));
  const input: TxInput = { txid: COINBASE_TXID, vout: MAX_SEQUENCE, scriptSig, sequence: MAX_SEQUENCE, witness: wtxids ? [new Uint8Array(32)] : [] };
  return parseTx(serializeTx(2, [input], outputs, 0));
}

/** Bitcoin's genesis coinbase (the same on every network): "The Times 03/Jan/2009 ...", 50 BTC to Satoshi's key. */
export function genesisCoinbase(): BtcTx {
  const scriptSig = Buffer.from(
    '04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73',
    'hex',
  );
  const script = Buffer.from(
    '4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac',
    'hex',
  );
  return parseTx(
    serializeTx(1, [{ txid: COINBASE_TXID, vout: MAX_SEQUENCE, scriptSig, sequence: MAX_SEQUENCE, witness: [] }], [{ value: 5_000_000_000n, script }], 0),
  );
}

/** Regtest's genesis header fields (time 1296688602, nonce 2). */
export const REGTEST_GENESIS = { version: 1, time: 1296688602, bits: REGTEST_BITS, nonce: 2 } as const;
