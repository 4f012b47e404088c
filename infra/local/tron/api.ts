/**
 * The TronGrid-compatible HTTP API of the local TRON node over its chain state: java-tron's `/wallet/*`
 * answers, TronGrid's `/v1/blocks/{n}/events`, `/v1/transactions/{id}/events` and
 * `/v1/accounts/{address}/transactions/trc20` (`only_to`, `only_from`, `contract_address`, `min_timestamp`,
 * `max_timestamp`, `order_by` block_timestamp asc or desc, `limit` and `fingerprint`), and the local-only
 * `/_local/*` endpoints.
 */
import { tronAddressToEvmHex } from '../../../shared/domain/chain-addresses.js';
import { b58 } from './chain.js';
import type { SimBlock, SimEvent, TronChain } from './chain.js';

/** The answer to a request, or undefined for an unknown endpoint (404). */
export function tronApi(chain: TronChain): (method: string, path: string, query: URLSearchParams, b: Record<string, unknown>) => unknown {
  const { blocks, head, mine, broadcast, trxBalance, genesisTime } = chain;
  const blockJson = (b: SimBlock) => ({
    blockID: b.id,
    block_header: {
      raw_data: {
        number: b.number,
        txTrieRoot: '0'.repeat(64),
        witness_address: '41'.padEnd(42, '0'),
        parentHash: b.parentHash,
        version: 30,
        timestamp: b.timestamp,
      },
      witness_signature: '',
    },
    ...(b.txs.length === 0
      ? {}
      : {
          transactions: b.txs.map((t) => ({
            ret: [{ contractRet: chain.info(t.txID)?.result ?? 'SUCCESS' }],
            signature: t.signatures.map((s) => Buffer.from(s).toString('hex')),
            txID: t.txID,
            raw_data: {
              contract: [
                t.contract.kind === 'transfer'
                  ? {
                      type: 'TransferContract',
                      parameter: {
                        value: { amount: Number(t.contract.amount), owner_address: b58(t.contract.owner), to_address: b58(t.contract.to) },
                        type_url: 'type.googleapis.com/protocol.TransferContract',
                      },
                    }
                  : {
                      type: 'TriggerSmartContract',
                      parameter: {
                        value: {
                          data: t.contract.data.slice(2),
                          owner_address: b58(t.contract.owner),
                          contract_address: b58(t.contract.contract),
                          call_value: Number(t.contract.callValue),
                        },
                        type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
                      },
                    },
              ],
              ref_block_bytes: t.refBlockBytes,
              ref_block_hash: t.refBlockHash,
              expiration: t.expiration,
              fee_limit: Number(t.feeLimit),
              timestamp: t.timestamp,
            },
            raw_data_hex: t.rawDataHex,
          })),
        }),
  });

  const eventJson = (b: SimBlock, e: SimEvent) => ({
    block_number: b.number,
    block_timestamp: b.timestamp,
    caller_contract_address: e.contract,
    contract_address: e.contract,
    event_index: e.index,
    event_name: 'Transfer',
    result: {
      '0': tronAddressToEvmHex(e.from),
      '1': tronAddressToEvmHex(e.to),
      '2': e.value.toString(),
      from: tronAddressToEvmHex(e.from),
      to: tronAddressToEvmHex(e.to),
      value: e.value.toString(),
    },
    result_type: { from: 'address', to: 'address', value: 'uint256' },
    event: 'Transfer(address indexed from, address indexed to, uint256 value)',
    transaction_id: e.txID,
  });

  /** A page of `all` as TronGrid pages (`limit` at most 200, an offset as the `fingerprint`). */
  const paged = (all: readonly unknown[], query: URLSearchParams) => {
    const limit = Math.min(200, Math.max(1, Number(query.get('limit') ?? 20) || 20));
    const start = Math.max(0, Number(query.get('fingerprint') ?? 0) || 0);
    const page = all.slice(start, start + limit);
    const more = start + limit < all.length;
    return { data: page, success: true, meta: { at: Date.now(), page_size: page.length, ...(more ? { fingerprint: String(start + limit) } : {}) } };
  };

  const sameAddress = (a: string, b: string): boolean => {
    try {
      return tronAddressToEvmHex(a).toLowerCase() === tronAddressToEvmHex(b).toLowerCase();
    } catch {
      return false;
    }
  };

  /** TronGrid's TRC-20 transfers of an account (the transfers the node's contracts emitted, as Transfer events). */
  const trc20Of = (address: string, query: URLSearchParams) => {
    const contract = query.get('contract_address');
    const min = Number(query.get('min_timestamp') ?? 0) || 0;
    const max = Number(query.get('max_timestamp') ?? Number.MAX_SAFE_INTEGER) || Number.MAX_SAFE_INTEGER;
    const rows = blocks.flatMap((block) =>
      block.timestamp < min || block.timestamp > max
        ? []
        : block.events
            .filter((e) => (contract === null || sameAddress(e.contract, contract)) && (sameAddress(e.to, address) || sameAddress(e.from, address)))
            .filter((e) =>
              query.get('only_to') === 'true' ? sameAddress(e.to, address) : query.get('only_from') === 'true' ? sameAddress(e.from, address) : true,
            )
            .map((e) => ({
              transaction_id: e.txID,
              token_info: { symbol: 'USDT', address: b58(e.contract), decimals: 6, name: 'Tether USD' },
              block_timestamp: block.timestamp,
              from: b58(e.from),
              to: b58(e.to),
              type: 'Transfer',
              value: e.value.toString(),
            })),
    );
    return (query.get('order_by') ?? 'block_timestamp,desc').endsWith(',asc') ? rows : rows.reverse();
  };

  return function route(method: string, path: string, query: URLSearchParams, b: Record<string, unknown>): unknown {
    const trc20 = /^\/v1\/accounts\/([^/]+)\/transactions\/trc20$/.exec(path);
    if (method === 'GET' && trc20) {
      const address = decodeURIComponent(trc20[1] ?? '');
      try {
        tronAddressToEvmHex(address);
      } catch {
        return { success: false, error: `invalid address: ${address}`, statusCode: 400 };
      }
      return paged(trc20Of(address, query), query);
    }
    const txEvents = /^\/v1\/transactions\/([0-9a-fA-F]{64})\/events$/.exec(path);
    if (method === 'GET' && txEvents) {
      const id = (txEvents[1] ?? '').toLowerCase();
      const info = chain.info(id);
      const block = info ? blocks[info.blockNumber] : undefined;
      return paged(block ? block.events.filter((e) => e.txID.toLowerCase() === id).map((e) => eventJson(block, e)) : [], query);
    }
    const events = /^\/v1\/blocks\/(\d+)\/events$/.exec(path);
    if (method === 'GET' && events) {
      const block = blocks[Number(events[1])];
      const all = block ? block.events.map((e) => eventJson(block, e)) : [];
      const limit = Math.min(200, Math.max(1, Number(query.get('limit') ?? 20)));
      const start = Number(query.get('fingerprint') ?? 0);
      const page = all.slice(start, start + limit);
      const more = start + limit < all.length;
      return { data: page, success: true, meta: { at: Date.now(), page_size: page.length, ...(more ? { fingerprint: String(start + limit) } : {}) } };
    }
    if (method !== 'POST') return undefined;
    switch (path) {
      case '/wallet/getnowblock':
        return blockJson(head());
      case '/wallet/getblockbynum': {
        const block = blocks[Number(b.num)];
        return block ? blockJson(block) : {};
      }
      case '/wallet/getaccount': {
        const address = b58(String(b.address));
        return chain.isActivated(address) ? { address, balance: Number(trxBalance(address)), create_time: genesisTime } : {};
      }
      case '/wallet/broadcasthex':
        return broadcast(String(b.transaction));
      case '/wallet/triggerconstantcontract': {
        const contract = {
          kind: 'trigger' as const,
          owner: b58(String(b.owner_address)),
          contract: b58(String(b.contract_address)),
          callValue: BigInt(Number(b.call_value ?? 0)),
          data: `0x${String(b.data ?? '')}`,
        };
        const ok = chain.wouldSucceed({ contract, txID: '' });
        return ok
          ? { result: { result: true }, energy_used: 14_650, constant_result: ['0'.repeat(63) + '1'], transaction: { ret: [{}] } }
          : {
              result: { result: true, message: Buffer.from('REVERT opcode executed').toString('hex') },
              energy_used: 3_000,
              constant_result: [''],
              transaction: { ret: [{ ret: 'FAILED' }] },
            };
      }
      case '/wallet/gettransactioninfobyid': {
        const id = String(b.value).toLowerCase();
        const info = chain.info(id);
        const block = info ? blocks[info.blockNumber] : undefined;
        if (!info || !block) return {};
        return {
          id,
          fee: Number(info.fee),
          blockNumber: info.blockNumber,
          blockTimeStamp: block.timestamp,
          contractResult: [''],
          ...(info.isCall
            ? { receipt: { energy_usage_total: 14_650, energy_fee: Number(info.fee), result: info.result } }
            : { receipt: { net_fee: Number(info.fee) } }),
          ...(info.result === 'REVERT' ? { result: 'FAILED', resMessage: Buffer.from('REVERT opcode executed').toString('hex') } : {}),
        };
      }
      case '/_local/transfer':
        return { txid: chain.transfer(String(b.token), String(b.to), BigInt(String(b.amount))) };
      case '/_local/fund':
        chain.fund(String(b.address), BigInt(String(b.amount)));
        return { ok: true };
      case '/_local/mine':
        return { blocks: mine(Number(b.count ?? 1)).map((x) => x.number) };
      default:
        return undefined;
    }
  };
}
