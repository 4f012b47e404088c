/**
 * The Esplora HTTP API (Blockstream's esplora/electrs `API.md`) of the local Bitcoin node over its chain: the
 * answers' field names, types and text forms as electrs gives them (test/fixtures/esplora holds recorded real
 * answers the tests compare shapes with).
 */
import type { BtcBlock, BtcChain, TxEntry } from './chain.js';
import type { BtcTx, TxOutput } from './block.js';
import { compactSize, difficulty } from './block.js';
import { addressScript, scriptAddress, scriptAsm, scriptType } from './script.js';
import { TxRefused } from './verify.js';

/** An answer: JSON, text (heights, hashes, hex), or bytes (`/raw`). */
export type EsploraAnswer =
  | { readonly status: number; readonly json: unknown }
  | { readonly status: number; readonly text: string }
  | { readonly status: number; readonly bytes: Uint8Array };

export interface EsploraOptions {
  /** `/fee-estimates` (confirmation target -> sat/vB); default 1 sat/vB for every target. */
  readonly feeEstimates?: () => Record<string, number>;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const text = (status: number, body: string): EsploraAnswer => ({ status, text: body });
const json = (body: unknown): EsploraAnswer => ({ status: 200, json: body });
const PAGE = 25;
const MEMPOOL_PAGE = 50;

/** Esplora's confirmation targets of `/fee-estimates`. */
export const FEE_TARGETS = [...Array.from({ length: 25 }, (_, i) => i + 1), 144, 504, 1008];

export function esploraApi(chain: BtcChain, options: EsploraOptions = {}): (method: string, path: string, body: string) => EsploraAnswer | undefined {
  const outputJson = (o: TxOutput) => {
    const address = scriptAddress(o.script);
    return {
      scriptpubkey: hex(o.script),
      scriptpubkey_asm: scriptAsm(o.script),
      scriptpubkey_type: scriptType(o.script),
      ...(address === undefined ? {} : { scriptpubkey_address: address }),
      value: Number(o.value),
    };
  };

  const statusJson = (e: TxEntry) => {
    if (e.height === undefined) return { confirmed: false };
    const block = chain.blocks[e.height] as BtcBlock;
    return { confirmed: true, block_height: block.height, block_hash: block.hash, block_time: block.time };
  };

  const txJson = (e: TxEntry) => {
    const tx: BtcTx = e.tx;
    return {
      txid: tx.txid,
      version: tx.version,
      locktime: tx.lockTime,
      vin: tx.inputs.map((i, n) => {
        const prevout = e.prevouts[n];
        const witnessScript = prevout && scriptType(prevout.script) === 'v0_p2wsh' ? i.witness[i.witness.length - 1] : undefined;
        return {
          txid: i.txid,
          vout: i.vout,
          prevout: prevout ? outputJson(prevout) : null,
          scriptsig: hex(i.scriptSig),
          scriptsig_asm: scriptAsm(i.scriptSig),
          ...(i.witness.length > 0 ? { witness: i.witness.map(hex) } : {}),
          is_coinbase: tx.coinbase,
          sequence: i.sequence,
          ...(witnessScript ? { inner_witnessscript_asm: scriptAsm(witnessScript) } : {}),
        };
      }),
      vout: tx.outputs.map(outputJson),
      size: tx.size,
      weight: tx.weight,
      fee: Number(e.fee),
      status: statusJson(e),
    };
  };

  const blockJson = (b: BtcBlock) => ({
    id: b.hash,
    height: b.height,
    version: b.version,
    timestamp: b.time,
    tx_count: b.txs.length,
    size: b.size,
    weight: b.weight,
    merkle_root: b.merkleRoot,
    previousblockhash: b.previousHash ?? null,
    mediantime: b.mediantime,
    nonce: b.nonce,
    bits: b.bits,
    difficulty: difficulty(b.bits),
  });

  const rawBlock = (b: BtcBlock) => Buffer.concat([b.header, compactSize(b.txs.length), ...b.txs.map((t) => t.raw)]);

  const entryOf = (txid: string) => (/^[0-9a-fA-F]{64}$/.test(txid) ? chain.entry(txid) : undefined);
  const notFound = text(404, 'Transaction not found');
  const noBlock = text(404, 'Block not found');

  const scriptOf = (address: string): Uint8Array | EsploraAnswer => {
    try {
      return addressScript(address);
    } catch {
      return text(400, 'Invalid Bitcoin address');
    }
  };

  const statsOf = (entries: TxEntry[], script: string) => {
    const s = { funded_txo_count: 0, funded_txo_sum: 0, spent_txo_count: 0, spent_txo_sum: 0, tx_count: entries.length };
    for (const e of entries) {
      e.tx.outputs.forEach((o) => {
        if (hex(o.script) === script) {
          s.funded_txo_count++;
          s.funded_txo_sum += Number(o.value);
        }
      });
      e.prevouts.forEach((p) => {
        if (hex(p.script) === script) {
          s.spent_txo_count++;
          s.spent_txo_sum += Number(p.value);
        }
      });
    }
    return s;
  };

  const broadcast = (body: string): EsploraAnswer => {
    const raw = body.trim();
    if (!/^([0-9a-fA-F]{2})+$/.test(raw)) return text(400, 'sendrawtransaction RPC error: {"code":-22,"message":"TX decode failed"}');
    try {
      return text(200, chain.submit(Buffer.from(raw, 'hex')));
    } catch (error) {
      if (!(error instanceof TxRefused)) throw error;
      return text(400, `sendrawtransaction RPC error: ${JSON.stringify({ code: error.code, message: error.reason })}`);
    }
  };

  const address = (a: string, rest: string): EsploraAnswer | undefined => {
    const script = scriptOf(a);
    if (!(script instanceof Uint8Array)) return script;
    const key = hex(script);
    const all = chain.scriptTxs(script);
    const mem = all.filter((e) => e.height === undefined);
    const conf = all.filter((e) => e.height !== undefined);
    if (rest === '') return json({ address: a, chain_stats: statsOf(conf, key), mempool_stats: statsOf(mem, key) });
    if (rest === '/utxo') {
      return json(chain.utxos(script).map((u) => ({ txid: u.txid, vout: u.vout, status: statusJson(u.entry), value: Number(u.value) })));
    }
    if (rest === '/txs') return json([...mem.slice(0, MEMPOOL_PAGE), ...conf.slice(0, PAGE)].map(txJson));
    if (rest === '/txs/mempool') return json(mem.slice(0, MEMPOOL_PAGE).map(txJson));
    const chainPage = /^\/txs\/chain(?:\/([0-9a-f]{64}))?$/.exec(rest);
    if (chainPage) {
      const after = chainPage[1] === undefined ? 0 : conf.findIndex((e) => e.tx.txid === chainPage[1]) + 1;
      return json(conf.slice(after, after + PAGE).map(txJson));
    }
    return undefined;
  };

  const block = (b: BtcBlock, rest: string): EsploraAnswer | undefined => {
    if (rest === '') return json(blockJson(b));
    if (rest === '/header') return text(200, hex(b.header));
    if (rest === '/raw') return { status: 200, bytes: rawBlock(b) };
    if (rest === '/txids') return json(b.txs.map((t) => t.txid));
    if (rest === '/status') {
      const next = chain.blocks[b.height + 1];
      return json({ in_best_chain: true, height: b.height, next_best: next ? next.hash : null });
    }
    const txid = /^\/txid\/(\d+)$/.exec(rest);
    if (txid) {
      const t = b.txs[Number(txid[1])];
      return t ? text(200, t.txid) : text(404, 'Transaction not found');
    }
    const page = /^\/txs(?:\/(\d+))?$/.exec(rest);
    if (page) {
      const start = Number(page[1] ?? 0);
      if (start % PAGE !== 0) return text(400, `start index must be a multipication of ${PAGE}`);
      if (start >= b.txs.length) return text(400, 'start index out of range');
      return json(b.txs.slice(start, start + PAGE).map((t) => txJson(chain.entry(t.txid) as TxEntry)));
    }
    return undefined;
  };

  const tx = (e: TxEntry, rest: string): EsploraAnswer | undefined => {
    if (rest === '') return json(txJson(e));
    if (rest === '/status') return json(statusJson(e));
    if (rest === '/hex') return text(200, hex(e.tx.raw));
    if (rest === '/raw') return { status: 200, bytes: e.tx.raw };
    const outspendJson = (vout: number) => {
      const s = chain.spender(e.tx.txid, vout);
      const by = s ? chain.entry(s.txid) : undefined;
      return s && by ? { spent: true, txid: s.txid, vin: s.vin, status: statusJson(by) } : { spent: false };
    };
    if (rest === '/outspends') return json(e.tx.outputs.map((_, vout) => outspendJson(vout)));
    const outspend = /^\/outspend\/(\d+)$/.exec(rest);
    if (outspend) {
      return json(outspendJson(Number(outspend[1])));
    }
    return undefined;
  };

  const feeEstimates = options.feeEstimates ?? (() => Object.fromEntries(FEE_TARGETS.map((t) => [String(t), 1])));

  return function route(method, path, body) {
    if (method === 'POST') return path === '/tx' ? broadcast(body) : undefined;
    if (method !== 'GET') return undefined;
    switch (path) {
      case '/blocks/tip/height':
        return text(200, String(chain.tip().height));
      case '/blocks/tip/hash':
        return text(200, chain.tip().hash);
      case '/fee-estimates':
        return json(feeEstimates());
      case '/mempool/txids':
        return json(chain.mempool().map((e) => e.tx.txid));
      case '/mempool': {
        const pool = chain.mempool();
        return json({
          count: pool.length,
          vsize: pool.reduce((n, e) => n + e.tx.vsize, 0),
          total_fee: pool.reduce((n, e) => n + Number(e.fee), 0),
          fee_histogram: [],
        });
      }
      case '/mempool/recent':
        return json(
          chain
            .mempool()
            .slice(-10)
            .reverse()
            .map((e) => ({ txid: e.tx.txid, fee: Number(e.fee), vsize: e.tx.vsize, value: e.tx.outputs.reduce((n, o) => n + Number(o.value), 0) })),
        );
      default:
        break;
    }
    const height = /^\/block-height\/(\d+)$/.exec(path);
    if (height) {
      const b = chain.blocks[Number(height[1])];
      return b ? text(200, b.hash) : noBlock;
    }
    const blocksFrom = /^\/blocks(?:\/(\d+))?$/.exec(path);
    if (blocksFrom) {
      const top = Math.min(Number(blocksFrom[1] ?? chain.tip().height), chain.tip().height);
      return json(
        chain.blocks
          .slice(Math.max(0, top - 9), top + 1)
          .reverse()
          .map(blockJson),
      );
    }
    const blockPath = /^\/block\/([^/]+)(\/.*)?$/.exec(path);
    if (blockPath) {
      const b = /^[0-9a-fA-F]{64}$/.test(blockPath[1] ?? '') ? chain.blockByHash(blockPath[1] as string) : undefined;
      if (!b) return /^[0-9a-fA-F]{64}$/.test(blockPath[1] ?? '') ? noBlock : text(400, 'Invalid hex string');
      return block(b, blockPath[2] ?? '');
    }
    const txPath = /^\/tx\/([^/]+)(\/.*)?$/.exec(path);
    if (txPath) {
      const id = txPath[1] ?? '';
      const rest = txPath[2] ?? '';
      const e = entryOf(id);
      if (e) return tx(e, rest);
      if (!/^[0-9a-fA-F]{64}$/.test(id)) return text(400, 'Invalid hex string');
      // electrs answers these from its indexes without looking the transaction up: an unknown one is unconfirmed and unspent.
      if (rest === '/status') return json({ confirmed: false });
      if (/^\/outspend\/\d+$/.test(rest)) return json({ spent: false });
      return notFound;
    }
    const addressPath = /^\/address\/([^/]+)(\/.*)?$/.exec(path);
    if (addressPath) return address(decodeURIComponent(addressPath[1] ?? ''), addressPath[2] ?? '');
    return undefined;
  };
}
