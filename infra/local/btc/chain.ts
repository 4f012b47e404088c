/**
 * The local Bitcoin node's chain: regtest blocks in memory, a mempool, and the checks bitcoind makes of a
 * broadcast transaction (./verify.ts for the signatures).
 *
 * Blocks are real: an 80-byte header (version, previous hash, merkle root over the txids, time, regtest `bits`,
 * nonce 0) whose double SHA-256 is the block hash, a coinbase first (BIP34 height, subsidy plus fees to the
 * faucet, BIP141 witness commitment). Proof of work is not ground: the node is the only miner and nobody checks.
 * Height 0 is regtest's genesis block, byte for byte (`0f9188f1...2206`); `premine` blocks (default 110) then pay
 * the faucet, so it holds mature coins at start (coinbases mature after 100 blocks, as on every network).
 *
 * A broadcast is refused, in bitcoind's words, when: it does not parse; an input is missing or spent in a block
 * (`bad-txns-inputs-missingorspent`) or spends an immature coinbase; values do not balance
 * (`bad-txns-in-belowout`); the fee is below the minimum relay fee (1 sat/vB); an output is dust; it is not final
 * (absolute lock time); a signature does not verify (P2WPKH and the gateway's tagged P2WSH; other input types are
 * refused naming the type); or it conflicts with a mempool transaction. A conflict is a BIP125 replacement when
 * every directly conflicting transaction signals replaceability itself (an input with nSequence < 0xfffffffe:
 * inherited signalling and relative lock times are not modelled) and the new transaction pays a higher fee rate
 * than each, and at least their fees (with their descendants') plus 1 sat/vB of its own size; the replaced
 * transactions and their descendants leave the mempool. A transaction already in the mempool is accepted again
 * (its txid answered), as bitcoind does.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { p2wpkh, Transaction } from '@scure/btc-signer';
import { pubECDSA, sha256x2 } from '@scure/btc-signer/utils.js';
import type { BtcTx, TxOutput } from './block.js';
import {
  COINBASE_MATURITY,
  coinbaseTx,
  compactSize,
  displayHash,
  encodeHeader,
  genesisCoinbase,
  internalHash,
  merkleRoot,
  parseTx,
  REGTEST_BITS,
  REGTEST_GENESIS,
  subsidy,
} from './block.js';
import { addressScript, REGTEST, scriptType } from './script.js';
import { sighashView, TxRefused, verifyInput } from './verify.js';

export interface BtcBlock {
  readonly hash: string;
  readonly height: number;
  readonly header: Uint8Array;
  readonly version: number;
  /** Display order; the genesis block's is undefined. */
  readonly previousHash: string | undefined;
  readonly merkleRoot: string;
  readonly time: number;
  readonly mediantime: number;
  readonly bits: number;
  readonly nonce: number;
  readonly txs: readonly BtcTx[];
  readonly size: number;
  readonly weight: number;
}

/** A known transaction: in a block (`height`, `index`) or in the mempool. */
export interface TxEntry {
  readonly tx: BtcTx;
  /** What each input spends (empty for a coinbase). */
  readonly prevouts: readonly TxOutput[];
  readonly fee: bigint;
  height: number | undefined;
  index: number;
}

export interface BtcChainOptions {
  /** Blocks mined to the faucet at start (default 110: its first 10 coinbases mature). */
  readonly premine?: number;
  /** The clock (ms) that dates blocks; default Date.now. */
  readonly now?: () => number;
  /** The faucet's private key (32 bytes); default a fixed key, so its address is the same on every start. */
  readonly faucetKey?: Uint8Array;
}

export interface BtcChain {
  readonly blocks: readonly BtcBlock[];
  readonly faucet: { readonly address: string; readonly script: Uint8Array };
  tip(): BtcBlock;
  blockByHash(hash: string): BtcBlock | undefined;
  entry(txid: string): TxEntry | undefined;
  mempool(): readonly TxEntry[];
  /** Who spends `txid:vout` (a block's or the mempool's transaction). */
  spender(txid: string, vout: number): { txid: string; vin: number } | undefined;
  /** Transactions paying or spending `script`, mempool ones first (newest first), then confirmed, newest first. */
  scriptTxs(script: Uint8Array): TxEntry[];
  /** Unspent outputs paying `script` (mempool ones included, outputs spent in the mempool excluded). */
  utxos(script: Uint8Array): { txid: string; vout: number; value: bigint; entry: TxEntry }[];
  /** Validates and adds a transaction to the mempool; answers its txid. Throws TxRefused. */
  submit(raw: Uint8Array): string;
  /** Mines `n` blocks with the mempool's transactions; answers them. */
  mine(n?: number): BtcBlock[];
  /** Pays `amount` satoshis from the faucet to `address` (in the mempool, mined in the next block); answers the txid. */
  fund(address: string, amount: bigint): string;
  /** Drops a mempool transaction and its descendants, as a node evicts; answers the dropped txids. */
  evict(txid: string): string[];
  /** The next `n` accepted broadcasts are answered but not kept (a broadcast lost on the way). */
  dropNextBroadcasts(n: number): void;
  readonly stats: { broadcasts: number; accepted: number; refused: number };
}

const DEFAULT_FAUCET_KEY = sha256(utf8ToBytes('gateway local bitcoin faucet'));
const MIN_RELAY_SAT_PER_VB = 1n;
const MAX_MONEY = 21_000_000n * 100_000_000n;
const MAX_STANDARD_WEIGHT = 400_000;
const MAX_BLOCK_WEIGHT = 4_000_000;
const BLOCK_VERSION = 0x20000000;
const FAUCET_FEE_SAT_PER_VB = 2;

/** bitcoind's dust thresholds at its default 3 sat/vB dust relay fee. */
function dustLimit(script: Uint8Array): bigint {
  switch (scriptType(script)) {
    case 'op_return':
      return 0n;
    case 'v0_p2wpkh':
      return 294n;
    case 'v0_p2wsh':
    case 'v1_p2tr':
      return 330n;
    case 'anchor':
      return 0n;
    default:
      return BigInt(3 * (8 + 1 + script.length + 148));
  }
}

const outpoint = (txid: string, vout: number) => `${txid}:${vout}`;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
/** A fee rate as bitcoind prints it in refusals: BTC per kvB. */
const btcPerKvB = (fee: bigint, vsize: number) => `${((Number(fee) * 1000) / vsize / 1e8).toFixed(8)} BTC/kvB`;

export function createBtcChain(options: BtcChainOptions = {}): BtcChain {
  const now = options.now ?? Date.now;
  const faucetKey = options.faucetKey ?? DEFAULT_FAUCET_KEY;
  const faucetPay = p2wpkh(pubECDSA(faucetKey), REGTEST);
  const faucet = { address: faucetPay.address as string, script: faucetPay.script };

  const blocks: BtcBlock[] = [];
  const byHash = new Map<string, BtcBlock>();
  const txs = new Map<string, TxEntry>();
  const pool = new Map<string, TxEntry>();
  const spends = new Map<string, { txid: string; vin: number }>();
  const byScript = new Map<string, Set<string>>();
  const stats = { broadcasts: 0, accepted: 0, refused: 0 };
  let dropNext = 0;
  let genesisTxid = '';

  const tip = (): BtcBlock => blocks[blocks.length - 1] as BtcBlock;
  const medianTime = (height: number): number => {
    const times = blocks.slice(Math.max(0, height - 10), height + 1).map((b) => b.time);
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)] as number;
  };

  const index = (entry: TxEntry) => {
    const scripts = [...entry.tx.outputs.map((o) => o.script), ...entry.prevouts.map((p) => p.script)];
    for (const s of scripts) {
      const key = hex(s);
      let set = byScript.get(key);
      if (!set) byScript.set(key, (set = new Set()));
      set.add(entry.tx.txid);
    }
  };

  const addBlock = (txsOfBlock: BtcTx[], time: number, entries: TxEntry[], fields?: { version: number; nonce: number }): BtcBlock => {
    const height = blocks.length;
    const prev = blocks[height - 1];
    const version = fields?.version ?? BLOCK_VERSION;
    const nonce = fields?.nonce ?? 0;
    const root = merkleRoot(txsOfBlock.map((t) => internalHash(t.txid)));
    const header = encodeHeader({ version, prevHash: prev ? internalHash(prev.hash) : new Uint8Array(32), merkleRoot: root, time, bits: REGTEST_BITS, nonce });
    const count = compactSize(txsOfBlock.length).length;
    const block: BtcBlock = {
      hash: displayHash(sha256x2(header)),
      height,
      header,
      version,
      previousHash: prev?.hash,
      merkleRoot: displayHash(root),
      time,
      mediantime: 0,
      bits: REGTEST_BITS,
      nonce,
      txs: txsOfBlock,
      size: 80 + count + txsOfBlock.reduce((n, t) => n + t.size, 0),
      weight: (80 + count) * 4 + txsOfBlock.reduce((n, t) => n + t.weight, 0),
    };
    blocks.push(block);
    (block as { mediantime: number }).mediantime = medianTime(height);
    byHash.set(block.hash, block);
    entries.forEach((e, i) => {
      e.height = height;
      e.index = i;
      txs.set(e.tx.txid, e);
      pool.delete(e.tx.txid);
      index(e);
    });
    return block;
  };

  const mineOne = (): BtcBlock => {
    const height = blocks.length;
    const chosen: TxEntry[] = [];
    let weight = 1000;
    for (const e of pool.values()) {
      if (weight + e.tx.weight > MAX_BLOCK_WEIGHT) break;
      weight += e.tx.weight;
      chosen.push(e);
    }
    const fees = chosen.reduce((n, e) => n + e.fee, 0n);
    const coinbase = coinbaseTx(
      height,
      subsidy(height) + fees,
      faucet.script,
      chosen.map((e) => internalHash(e.tx.wtxid)),
    );
    const time = Math.max(Math.floor(now() / 1000), medianTime(height - 1) + 1);
    const cbEntry: TxEntry = { tx: coinbase, prevouts: [], fee: 0n, height: undefined, index: 0 };
    return addBlock([coinbase, ...chosen.map((e) => e.tx)], time, [cbEntry, ...chosen]);
  };

  const signals = (tx: BtcTx) => tx.inputs.some((i) => i.sequence < 0xfffffffe);

  /** `txid` and its mempool descendants. */
  const withDescendants = (txid: string): Set<string> => {
    const found = new Set<string>();
    const queue = [txid];
    while (queue.length > 0) {
      const id = queue.pop() as string;
      const e = pool.get(id);
      if (!e || found.has(id)) continue;
      found.add(id);
      e.tx.outputs.forEach((_, vout) => {
        const s = spends.get(outpoint(id, vout));
        if (s) queue.push(s.txid);
      });
    }
    return found;
  };

  const remove = (ids: Iterable<string>) => {
    for (const id of ids) {
      const e = pool.get(id);
      if (!e) continue;
      pool.delete(id);
      txs.delete(id);
      e.tx.inputs.forEach((i) => {
        const key = outpoint(i.txid, i.vout);
        if (spends.get(key)?.txid === id) spends.delete(key);
      });
    }
  };

  const check = (raw: Uint8Array): { tx: BtcTx; entry?: TxEntry; replaced: Set<string> } => {
    let tx: BtcTx;
    try {
      tx = parseTx(raw);
    } catch {
      throw new TxRefused('TX decode failed. Make sure the tx has at least one input.', -22);
    }
    if (tx.inputs.length === 0) throw new TxRefused('bad-txns-vin-empty');
    if (tx.outputs.length === 0) throw new TxRefused('bad-txns-vout-empty');
    const known = txs.get(tx.txid);
    if (known && known.height === undefined) return { tx, replaced: new Set() };
    if (known) throw new TxRefused('Transaction outputs already in utxo set', -27);
    if (tx.coinbase) throw new TxRefused('coinbase');
    if (tx.version < 1 || tx.version > 3) throw new TxRefused('version');
    if (tx.weight > MAX_STANDARD_WEIGHT) throw new TxRefused('tx-size');
    let total = 0n;
    for (const o of tx.outputs) {
      if (o.value > MAX_MONEY) throw new TxRefused('bad-txns-vout-toolarge');
      total += o.value;
      if (o.value < dustLimit(o.script)) throw new TxRefused('dust');
    }
    if (total > MAX_MONEY) throw new TxRefused('bad-txns-txouttotal-toolarge');
    const seen = new Set<string>();
    const conflicts = new Set<string>();
    const prevouts: TxOutput[] = [];
    const nextHeight = blocks.length;
    for (const input of tx.inputs) {
      const key = outpoint(input.txid, input.vout);
      if (seen.has(key)) throw new TxRefused('bad-txns-inputs-duplicate');
      seen.add(key);
      const from = txs.get(input.txid);
      const out = from?.tx.outputs[input.vout];
      const spender = spends.get(key);
      if (!from || !out || input.txid === genesisTxid || (spender && txs.get(spender.txid)?.height !== undefined)) {
        throw new TxRefused('bad-txns-inputs-missingorspent', -25);
      }
      if (from.tx.coinbase && from.height !== undefined && nextHeight - from.height < COINBASE_MATURITY) {
        throw new TxRefused(`bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth ${nextHeight - from.height}`);
      }
      if (spender) conflicts.add(spender.txid);
      prevouts.push(out);
    }
    const final =
      tx.lockTime === 0 ||
      tx.inputs.every((i) => i.sequence === 0xffffffff) ||
      (tx.lockTime < 500_000_000 ? tx.lockTime < nextHeight : tx.lockTime < medianTime(nextHeight - 1));
    if (!final) throw new TxRefused('non-final');
    const inSum = prevouts.reduce((n, p) => n + p.value, 0n);
    if (inSum < total) throw new TxRefused(`bad-txns-in-belowout, value in (${inSum}) < value out (${total})`);
    const fee = inSum - total;
    const minFee = BigInt(tx.vsize) * MIN_RELAY_SAT_PER_VB;
    if (fee < minFee) throw new TxRefused(`min relay fee not met, ${fee} < ${minFee}`);
    const view = sighashView(tx);
    tx.inputs.forEach((_, i) => verifyInput(tx, view, i, prevouts[i] as TxOutput));

    const replaced = new Set<string>();
    for (const id of conflicts) {
      const c = pool.get(id) as TxEntry;
      if (!signals(c.tx)) throw new TxRefused('txn-mempool-conflict');
      if (fee * BigInt(c.tx.vsize) <= c.fee * BigInt(tx.vsize)) {
        throw new TxRefused(
          `insufficient fee, rejecting replacement ${tx.txid}; new feerate ${btcPerKvB(fee, tx.vsize)} <= old feerate ${btcPerKvB(c.fee, c.tx.vsize)}`,
        );
      }
      for (const d of withDescendants(id)) replaced.add(d);
    }
    if (tx.inputs.some((i) => replaced.has(i.txid))) throw new TxRefused('bad-txns-spends-conflicting-tx');
    if (replaced.size > 100) throw new TxRefused(`too many potential replacements`);
    const replacedFees = [...replaced].reduce((n, id) => n + (pool.get(id) as TxEntry).fee, 0n);
    if (conflicts.size > 0 && fee < replacedFees) {
      throw new TxRefused(`insufficient fee, rejecting replacement ${tx.txid}, less fees than conflicting txs; ${fee} < ${replacedFees}`);
    }
    if (conflicts.size > 0 && fee - replacedFees < minFee) {
      throw new TxRefused(`insufficient fee, rejecting replacement ${tx.txid}, not enough additional fees to relay; ${fee - replacedFees} < ${minFee}`);
    }
    return { tx, entry: { tx, prevouts, fee, height: undefined, index: 0 }, replaced };
  };

  const submit = (raw: Uint8Array): string => {
    stats.broadcasts++;
    let checked;
    try {
      checked = check(raw);
    } catch (error) {
      stats.refused++;
      throw error;
    }
    const { tx, entry, replaced } = checked;
    if (!entry) return tx.txid;
    if (dropNext > 0) {
      dropNext--;
      return tx.txid;
    }
    remove(replaced);
    txs.set(tx.txid, entry);
    pool.set(tx.txid, entry);
    tx.inputs.forEach((i, vin) => spends.set(outpoint(i.txid, i.vout), { txid: tx.txid, vin }));
    index(entry);
    stats.accepted++;
    return tx.txid;
  };

  const utxos = (script: Uint8Array) => {
    const key = hex(script);
    const rows: { txid: string; vout: number; value: bigint; entry: TxEntry }[] = [];
    for (const id of byScript.get(key) ?? []) {
      const entry = txs.get(id);
      if (!entry || id === genesisTxid) continue;
      entry.tx.outputs.forEach((o, vout) => {
        if (hex(o.script) === key && !spends.has(outpoint(id, vout))) rows.push({ txid: id, vout, value: o.value, entry });
      });
    }
    return rows;
  };

  const fund = (address: string, amount: bigint): string => {
    let script: Uint8Array;
    try {
      script = addressScript(address);
    } catch (error) {
      throw new TxRefused(`not a regtest address: ${address} (${error instanceof Error ? error.message : String(error)})`);
    }
    if (amount < dustLimit(script)) throw new TxRefused('dust');
    const nextHeight = blocks.length;
    const coins = utxos(faucet.script)
      .filter((c) => !c.entry.tx.coinbase || (c.entry.height !== undefined && nextHeight - c.entry.height >= COINBASE_MATURITY))
      .sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1));
    const chosen: typeof coins = [];
    let sum = 0n;
    let fee = 0n;
    for (const c of coins) {
      chosen.push(c);
      sum += c.value;
      fee = BigInt(Math.ceil((11 + 68 * chosen.length + 43 * 2) * FAUCET_FEE_SAT_PER_VB));
      if (sum >= amount + fee) break;
    }
    if (sum < amount + fee) throw new TxRefused(`the faucet holds ${sum} sat, not enough for ${amount} + fee ${fee}`);
    const tx = new Transaction({ allowUnknownOutputs: true });
    for (const c of chosen) tx.addInput({ txid: c.txid, index: c.vout, witnessUtxo: { script: faucet.script, amount: c.value }, sequence: 0xfffffffe });
    tx.addOutput({ script, amount });
    const change = sum - amount - fee;
    if (change >= 1000n) tx.addOutput({ script: faucet.script, amount: change });
    tx.sign(faucetKey);
    tx.finalize();
    return submit(tx.extract());
  };

  // Regtest's genesis block, then the premine to the faucet.
  const genesis = genesisCoinbase();
  genesisTxid = genesis.txid;
  addBlock([genesis], REGTEST_GENESIS.time, [{ tx: genesis, prevouts: [], fee: 0n, height: undefined, index: 0 }], REGTEST_GENESIS);
  for (let i = 0; i < (options.premine ?? 110); i++) mineOne();

  return {
    blocks,
    faucet,
    tip,
    blockByHash: (hash) => byHash.get(hash.toLowerCase()),
    entry: (txid) => txs.get(txid.toLowerCase()),
    mempool: () => [...pool.values()],
    spender: (txid, vout) => spends.get(outpoint(txid.toLowerCase(), vout)),
    scriptTxs(script) {
      const entries = [...(byScript.get(hex(script)) ?? [])].map((id) => txs.get(id)).filter((e): e is TxEntry => e !== undefined);
      const mem = entries.filter((e) => e.height === undefined).reverse();
      const conf = entries.filter((e) => e.height !== undefined).sort((a, b) => (b.height as number) - (a.height as number) || b.index - a.index);
      return [...mem, ...conf];
    },
    utxos,
    submit,
    mine: (n = 1) => Array.from({ length: n }, () => mineOne()),
    fund,
    evict(txid) {
      const ids = withDescendants(txid.toLowerCase());
      remove(ids);
      return [...ids];
    },
    dropNextBroadcasts(n) {
      dropNext = n;
    },
    stats,
  };
}
