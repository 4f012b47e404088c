/**
 * The EVM side of the chain scanner, behind a port: the scanner use case asks for block heads, block hashes,
 * the Transfer logs of a block range of a set of token contracts (ONE eth_getLogs per range whatever the
 * number of watched addresses: the `to` filter is applied afterwards against the address items), and native
 * balances and top-level native transfers. Custody's sync asks for one address's incoming transfers instead
 * (`transferLogsTo`: the node filters on the `to` topic). `jsonRpcChain` is the JSON-RPC implementation, on plain
 * `fetch` (no SDK, so it may run in an API Lambda); it counts its calls (bench, tests).
 */

import type { NativeTransfer, TokenTransfer } from '../../usecases/deposits/ports.js';

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface BlockRef {
  readonly number: number;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: number;
}

/** A token's Transfer log: the deposit port's transfer (`to` lowercase hex), with its sender. */
export interface TransferLog extends TokenTransfer {
  readonly from: string;
}

export type { NativeTransfer };

export interface EvmChainPort {
  blockNumber(): Promise<number>;
  block(number: number): Promise<BlockRef | null>;
  /** Transfer logs of these token contracts in [from, to] (inclusive). */
  transferLogs(from: number, to: number, tokens: readonly string[]): Promise<TransferLog[]>;
  /**
   * Transfer logs of these token contracts to one address in [from, to] (inclusive), oldest first, with the
   * same ids the scan gives them (transaction hash, log index). EVM: eth_getLogs filtered on the `to` topic, in
   * ranges of at most `maxRange` blocks (default 5,000).
   */
  transferLogsTo(from: number, to: number, tokens: readonly string[], recipient: string, options?: { readonly maxRange?: number }): Promise<TransferLog[]>;
  balance(address: string, blockNumber?: number): Promise<bigint>;
  /** Top-level transactions with a value in [from, to] (one block read per block). */
  nativeTransfers(from: number, to: number): Promise<NativeTransfer[]>;
  /** RPC calls made so far. */
  readonly calls: number;
  close(): void;
}

interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

const topicAddress = (topic: string): string => `0x${topic.slice(26)}`.toLowerCase();
/** An address as an indexed topic: 32 bytes, left-padded. */
const addressTopic = (address: string): string => `0x${address.toLowerCase().replace(/^0x/, '').padStart(64, '0')}`;

export class EvmRpcError extends Error {
  readonly code: number | 'HTTP' | 'NETWORK' | 'UNEXPECTED_ANSWER';
  constructor(code: EvmRpcError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EvmRpcError';
    this.code = code;
  }
}

/** One JSON-RPC call over fetch: the result, or an EvmRpcError (the node's error code, HTTP, network, answer shape). */
export function jsonRpcCaller(url: string, timeoutMs = 15_000): <T>(method: string, params: unknown[]) => Promise<T> {
  let id = 0;
  return async <T>(method: string, params: unknown[]): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new EvmRpcError('NETWORK', `${method} failed: ${String(error)}`, { cause: error });
    }
    const text = await response.text();
    if (!response.ok) throw new EvmRpcError('HTTP', `${method} answered HTTP ${response.status}: ${text.slice(0, 200)}`);
    let answer: { result?: unknown; error?: { code?: unknown; message?: unknown } };
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch (error) {
      throw new EvmRpcError('UNEXPECTED_ANSWER', `${method} answered non-JSON: ${text.slice(0, 200)}`, { cause: error });
    }
    if (answer.error) {
      const code = typeof answer.error.code === 'number' ? answer.error.code : 'UNEXPECTED_ANSWER';
      throw new EvmRpcError(code, `${method}: ${String(answer.error.message)}`);
    }
    if (!('result' in answer)) throw new EvmRpcError('UNEXPECTED_ANSWER', `${method} answered without a result`);
    return answer.result as T;
  };
}

/** Decodes an ERC-20 Transfer log (indexed from/to, value in data); null for anything else. */
export function decodeTransfer(log: RawLog): TransferLog | null {
  if (log.removed || log.topics.length !== 3 || log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) return null;
  return {
    token: log.address.toLowerCase(),
    from: topicAddress(log.topics[1] ?? ''),
    to: topicAddress(log.topics[2] ?? ''),
    value: BigInt(log.data === '0x' ? 0 : log.data),
    txHash: log.transactionHash,
    logIndex: Number(BigInt(log.logIndex)),
    blockNumber: Number(BigInt(log.blockNumber)),
    blockHash: log.blockHash,
  };
}

export function jsonRpcChain(url: string): EvmChainPort {
  const call = jsonRpcCaller(url);
  let calls = 0;
  const send = async <T>(method: string, params: unknown[]): Promise<T> => {
    calls++;
    return call<T>(method, params);
  };
  const hex = (n: number) => `0x${n.toString(16)}`;
  return {
    get calls() {
      return calls;
    },
    blockNumber: async () => Number(BigInt(await send<string>('eth_blockNumber', []))),
    async block(number) {
      const b = await send<{ number: string; hash: string; parentHash: string; timestamp: string } | null>('eth_getBlockByNumber', [hex(number), false]);
      return b ? { number: Number(BigInt(b.number)), hash: b.hash, parentHash: b.parentHash, timestamp: Number(BigInt(b.timestamp)) } : null;
    },
    async transferLogs(from, to, tokens) {
      if (tokens.length === 0 || to < from) return [];
      const logs = await send<RawLog[]>('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), address: [...tokens], topics: [TRANSFER_TOPIC] }]);
      return logs.flatMap((l) => decodeTransfer(l) ?? []);
    },
    async transferLogsTo(from, to, tokens, recipient, options = {}) {
      const maxRange = options.maxRange ?? 5_000;
      if (!Number.isInteger(maxRange) || maxRange < 1) throw new RangeError(`maxRange must be a positive integer, got ${maxRange}`);
      const out: TransferLog[] = [];
      if (tokens.length === 0) return out;
      for (let start = Math.max(0, from); start <= to; start += maxRange) {
        const end = Math.min(to, start + maxRange - 1);
        const logs = await send<RawLog[]>('eth_getLogs', [
          { fromBlock: hex(start), toBlock: hex(end), address: [...tokens], topics: [TRANSFER_TOPIC, null, addressTopic(recipient)] },
        ]);
        out.push(...logs.flatMap((l) => decodeTransfer(l) ?? []));
      }
      return out.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
    },
    balance: async (address, blockNumber) => BigInt(await send<string>('eth_getBalance', [address, blockNumber === undefined ? 'latest' : hex(blockNumber)])),
    async nativeTransfers(from, to) {
      const out: NativeTransfer[] = [];
      for (let n = from; n <= to; n++) {
        const b = await send<{ hash: string; transactions: { hash: string; to: string | null; value: string }[] } | null>('eth_getBlockByNumber', [
          hex(n),
          true,
        ]);
        for (const tx of b?.transactions ?? []) {
          const value = BigInt(tx.value);
          if (tx.to && value > 0n) out.push({ to: tx.to.toLowerCase(), value, txHash: tx.hash, blockNumber: n, blockHash: b?.hash ?? '' });
        }
      }
      return out;
    },
    close: () => undefined,
  };
}
