import { RawTx } from '@scure/btc-signer';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';

/**
 * A raw Bitcoin block (`GET /block/:hash/raw`: the 80-byte header, then the transactions as serialised on the wire)
 * read into what the scanner needs: its hash, its parent, and the outputs of its transactions. Each transaction is
 * decoded with @scure/btc-signer (`RawTx`); the block's merkle root is recomputed from their ids and must be the
 * header's, and the header must hash to the block's hash: the bytes the API sent are that block, whole.
 */

export class BtcBlockError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BtcBlockError';
  }
}

export interface BtcOutput {
  /** Transaction id (hex, as explorers show it: byte-reversed double SHA-256). */
  readonly txid: string;
  readonly vout: number;
  /** Satoshis. */
  readonly value: bigint;
  readonly script: Uint8Array;
}

export interface BtcBlock {
  /** Block hash (hex, display order). */
  readonly hash: string;
  readonly previousHash: string;
  readonly merkleRoot: string;
  readonly time: number;
  readonly txids: readonly string[];
  /** Every output of every transaction, in block order. */
  readonly outputs: readonly BtcOutput[];
}

const sha256d = (bytes: Uint8Array): Uint8Array => sha256(sha256(bytes));
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
/** Display order of a hash (Bitcoin shows its hashes byte-reversed). */
const display = (hash: Uint8Array): string => bytesToHex(Uint8Array.from(hash).reverse());

/** A cursor over the block's bytes that refuses to read past the end. */
class Cursor {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  skip(n: number): void {
    if (n < 0 || this.pos + n > this.bytes.length) throw new BtcBlockError(`Truncated block at byte ${this.pos}`);
    this.pos += n;
  }

  byte(): number {
    this.skip(1);
    return this.bytes[this.pos - 1] as number;
  }

  /** A CompactSize integer. */
  varint(): number {
    const first = this.byte();
    if (first < 0xfd) return first;
    const size = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    this.skip(size);
    let value = 0;
    for (let i = size - 1; i >= 0; i--) value = value * 256 + (this.bytes[this.pos - size + i] as number);
    if (!Number.isSafeInteger(value)) throw new BtcBlockError('CompactSize out of range');
    return value;
  }
}

/** Skips one serialised transaction (BIP144 when the marker and flag follow the version) and returns its bytes. */
function nextTransaction(c: Cursor): Uint8Array {
  const start = c.pos;
  c.skip(4);
  const segwit = c.bytes[c.pos] === 0x00 && c.bytes[c.pos + 1] === 0x01;
  if (segwit) c.skip(2);
  const inputs = c.varint();
  for (let i = 0; i < inputs; i++) {
    c.skip(36);
    c.skip(c.varint());
    c.skip(4);
  }
  const outputs = c.varint();
  for (let i = 0; i < outputs; i++) {
    c.skip(8);
    c.skip(c.varint());
  }
  if (segwit) {
    for (let i = 0; i < inputs; i++) {
      const items = c.varint();
      for (let j = 0; j < items; j++) c.skip(c.varint());
    }
  }
  c.skip(4);
  return c.bytes.subarray(start, c.pos);
}

/** The merkle root of transaction ids (internal byte order), Bitcoin's way: an odd level repeats its last hash. */
export function merkleRoot(ids: readonly Uint8Array[]): Uint8Array {
  if (ids.length === 0) throw new BtcBlockError('A block has at least one transaction');
  let level = [...ids];
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i] as Uint8Array;
      next.push(sha256d(concatBytes(left, level[i + 1] ?? left)));
    }
    level = next;
  }
  return level[0] as Uint8Array;
}

/** Parses a raw block; `expectedHash` (display order), when given, must be its header's hash. */
export function parseBlock(raw: Uint8Array, expectedHash?: string): BtcBlock {
  if (raw.length < 81) throw new BtcBlockError(`A block is more than its 80-byte header (got ${raw.length} bytes)`);
  const header = raw.subarray(0, 80);
  const hash = display(sha256d(header));
  if (expectedHash !== undefined && hash !== expectedHash.toLowerCase()) throw new BtcBlockError(`The block's header hashes to ${hash}, not ${expectedHash}`);
  const c = new Cursor(raw);
  c.skip(80);
  const count = c.varint();
  const ids: Uint8Array[] = [];
  const txids: string[] = [];
  const outputs: BtcOutput[] = [];
  for (let i = 0; i < count; i++) {
    const bytes = nextTransaction(c);
    let tx: ReturnType<typeof RawTx.decode>;
    try {
      tx = RawTx.decode(bytes);
    } catch (error) {
      throw new BtcBlockError(`Transaction ${i} of block ${hash} does not parse`, { cause: error });
    }
    // The id commits to the transaction without its witnesses (BIP141).
    const id = sha256d(RawTx.encode({ ...tx, segwitFlag: false, witnesses: undefined }));
    const txid = display(id);
    ids.push(id);
    txids.push(txid);
    tx.outputs.forEach((o, vout) => outputs.push({ txid, vout, value: o.amount, script: o.script }));
  }
  if (c.pos !== raw.length) throw new BtcBlockError(`${raw.length - c.pos} bytes after the last transaction of block ${hash}`);
  const root = merkleRoot(ids);
  if (!sameBytes(root, header.subarray(36, 68))) throw new BtcBlockError(`The transactions of block ${hash} do not match its merkle root`);
  const view = new DataView(header.buffer, header.byteOffset, 80);
  return {
    hash,
    previousHash: display(header.subarray(4, 36)),
    merkleRoot: display(root),
    time: view.getUint32(68, true),
    txids,
    outputs,
  };
}

/** Whether an output script is a P2WSH output (`OP_0 <32 bytes>`): every deposit address of the gateway is one. */
export const isP2wshScript = (script: Uint8Array): boolean => script.length === 34 && script[0] === 0x00 && script[1] === 0x20;
