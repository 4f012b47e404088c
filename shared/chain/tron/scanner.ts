/**
 * The TRON side of the chain scanner: the scanner's chain port over the TronGrid-compatible API, so TRON
 * payments go through the same scan (shared/usecases/scanner/scan.ts, through ./deposit-source.ts) as EVM ones.
 *
 * Per block of a range: ONE `/v1/blocks/{n}/events` (all contracts' events; pages of 200), filtered to the
 * catalogue tokens' `Transfer` events, and the block itself (`getblockbynum`, for its id) only when it holds such
 * a transfer. The cost grows with blocks and transfers, never with the number of watched addresses. Addresses
 * come out in the TVM's 20-byte 0x-hex form, lowercase (what the deposit-address items are keyed by).
 *
 * One address's incoming transfers (custody's sync, `transferLogsTo`): the account's TRC-20 transfers since the
 * range's first block (`/v1/accounts/{address}/transactions/trc20`, `only_to`, per token), then each new
 * transaction's events (`/v1/transactions/{id}/events`) for the event index and block the scan would give it, and
 * each block once (its id).
 */
import type { BlockRef, EvmChainPort, NativeTransfer, TransferLog } from '../evm/scanner.js';
import { toTronBase58, tronAddressToEvmHex } from '../../domain/chain-addresses.js';
import type { TronBlock, TronEvent } from './grid.js';
import type { TronGridClient } from './grid.js';

const hex20 = (address: string): string => tronAddressToEvmHex(address).toLowerCase();

function transferOf(e: TronEvent): { from: string; to: string; value: bigint } | null {
  if (e.event_name !== 'Transfer') return null;
  const from = e.result.from ?? e.result['0'];
  const to = e.result.to ?? e.result['1'];
  const value = e.result.value ?? e.result['2'];
  if (from === undefined || to === undefined || value === undefined || !/^\d+$/.test(value)) return null;
  try {
    return { from: hex20(from), to: hex20(to), value: BigInt(value) };
  } catch {
    return null;
  }
}

const blockRef = (b: TronBlock): BlockRef => ({ number: b.number, hash: b.id, parentHash: b.parentHash, timestamp: Math.floor(b.timestamp / 1000) });

export function tronScanChain(client: TronGridClient): EvmChainPort {
  return {
    get calls() {
      return client.calls;
    },
    blockNumber: async () => (await client.nowBlock()).number,
    async block(number) {
      const b = await client.blockByNum(number);
      return b ? blockRef(b) : null;
    },
    async transferLogs(from, to, tokens) {
      if (tokens.length === 0 || to < from) return [];
      const watched = new Set(tokens.map(hex20));
      const out: TransferLog[] = [];
      for (let n = from; n <= to; n++) {
        const found: Omit<TransferLog, 'blockHash'>[] = [];
        for (const e of await client.blockEvents(n)) {
          // Unconfirmed events may still be dropped; the scan counts confirmations and re-checks block ids anyway.
          const token = hex20(e.contract_address);
          const t = watched.has(token) ? transferOf(e) : null;
          if (t) found.push({ token, ...t, txHash: e.transaction_id.toLowerCase(), logIndex: e.event_index, blockNumber: e.block_number });
        }
        if (found.length === 0) continue;
        const block = await client.blockByNum(n);
        if (!block) continue; // the block vanished between the two calls: the next pass sees the new one
        out.push(...found.map((f) => ({ ...f, blockHash: block.id })));
      }
      return out;
    },
    async transferLogsTo(from, to, tokens, recipient) {
      if (tokens.length === 0 || to < from) return [];
      const start = await client.blockByNum(Math.max(0, from));
      if (!start) return [];
      const target = hex20(recipient);
      const out: TransferLog[] = [];
      const blocks = new Map<number, string | null>();
      for (const token of new Set(tokens.map(hex20))) {
        const seen = new Set<string>();
        for (const t of await client.trc20TransfersTo(toTronBase58(recipient), { contract: toTronBase58(token), minTimestamp: start.timestamp })) {
          const txID = t.transaction_id.toLowerCase();
          if (seen.has(txID)) continue;
          seen.add(txID);
          for (const e of await client.transactionEvents(txID)) {
            const transfer = hex20(e.contract_address) === token ? transferOf(e) : null;
            if (!transfer || transfer.to !== target || e.block_number < from || e.block_number > to) continue;
            if (!blocks.has(e.block_number)) blocks.set(e.block_number, (await client.blockByNum(e.block_number))?.id ?? null);
            const blockHash = blocks.get(e.block_number);
            if (!blockHash) continue; // not in a block any more: the next sync or scan sees where it went
            out.push({ token, ...transfer, txHash: txID, logIndex: e.event_index, blockNumber: e.block_number, blockHash });
          }
        }
      }
      return out.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
    },
    balance: async (address) => (await client.account(address)).balance,
    async nativeTransfers(from, to) {
      const out: NativeTransfer[] = [];
      for (let n = from; n <= to; n++) {
        const b = await client.blockByNum(n);
        for (const tx of b?.transactions ?? []) {
          const c = tx.raw_data.contract[0];
          if (c?.type !== 'TransferContract' || (tx.ret?.[0]?.contractRet ?? 'SUCCESS') !== 'SUCCESS') continue;
          const value = c.parameter.value;
          if (typeof value.to_address !== 'string' || (typeof value.amount !== 'number' && typeof value.amount !== 'string')) continue;
          out.push({ to: hex20(value.to_address), value: BigInt(value.amount), txHash: tx.txID.toLowerCase(), blockNumber: n, blockHash: b?.id ?? '' });
        }
      }
      return out;
    },
    close: () => undefined,
  };
}
