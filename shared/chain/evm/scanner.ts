/**
 * The EVM side of the chain scanner, behind a port: the scanner use case asks for block heads, block hashes,
 * the Transfer logs of a block range of a set of token contracts (ONE eth_getLogs per range whatever the
 * number of watched addresses: the `to` filter is applied afterwards against the address items), and native
 * balances and top-level native transfers. `jsonRpcChain` is the JSON-RPC implementation; it counts its calls (bench, tests).
 */
import { JsonRpcProvider } from 'ethers';

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface BlockRef {
  readonly number: number;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: number;
}

export interface TransferLog {
  readonly token: string;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly txHash: string;
  readonly logIndex: number;
  readonly blockNumber: number;
  readonly blockHash: string;
}

export interface NativeTransfer {
  readonly to: string;
  readonly value: bigint;
  readonly txHash: string;
  readonly blockNumber: number;
  readonly blockHash: string;
}

export interface EvmChainPort {
  blockNumber(): Promise<number>;
  block(number: number): Promise<BlockRef | null>;
  /** Transfer logs of these token contracts in [from, to] (inclusive). */
  transferLogs(from: number, to: number, tokens: readonly string[]): Promise<TransferLog[]>;
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
  const provider = new JsonRpcProvider(url, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 20 });
  let calls = 0;
  const send = async <T>(method: string, params: unknown[]): Promise<T> => {
    calls++;
    return (await provider.send(method, params)) as T;
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
    close: () => provider.destroy(),
  };
}
