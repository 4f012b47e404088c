/**
 * A local TRON node behind the TronGrid-compatible HTTP API, for the local stack and the tests: the endpoints
 * the gateway uses (`/wallet/getnowblock`, `getblockbynum`, `getaccount`, `broadcasthex`,
 * `triggerconstantcontract`, `gettransactioninfobyid`, and `/v1/blocks/{n}/events`), answering in the shapes java-tron and TronGrid document.
 *
 * It checks what a real node checks of a broadcast: one signature recovering to the owner, TAPOS (the referenced
 * block exists), expiration (after the head, at most 24 h ahead), duplicates, and balances. It executes what
 * the gateway sends: TRX transfers, TRC-20 `transfer` on its tokens, and the forwarder factory's
 * `deployAndFlush(salts, token)` (each salt's TRON CREATE2 deposit address flushed to the treasury). Blocks are
 * produced every `blockTimeMs` (or by `mine()`), with timestamps advancing by `blockTimeMs` from the genesis
 * time, so expiry is deterministic in tests.
 *
 * Local-only endpoints, for `dev pay` and tests: `POST /_local/transfer {token, to, amount}` (a TRC-20 transfer
 * from the faucet, mined in the next block), `POST /_local/fund {address, amount}` (TRX, sun), `POST /_local/mine`.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Interface } from 'ethers';
import { FORWARDER_FACTORY_ABI } from '../../shared/chain/evm/abi.js';
import { toTronBase58, tronAddressFromBytes, tronAddressToEvmHex, tronDepositAddress } from '../../shared/chain/tron/create2.js';
import type { ParsedTronTx } from '../../shared/chain/tron/transaction.js';
import { parseTronTransaction, recoverTronSigner } from '../../shared/chain/tron/transaction.js';

const erc20 = new Interface(['function transfer(address to, uint256 value) returns (bool)']);
const factoryAbi = new Interface(FORWARDER_FACTORY_ABI);
/** Where `/_local/transfer` tokens come from (0x41 ‖ 0x11…11). */
const FAUCET = tronAddressFromBytes(Uint8Array.from([0x41, ...new Array<number>(20).fill(0x11)]));
/** Sun burnt per contract call (energy), and per TRX transfer (bandwidth). */
const CALL_FEE = 5_000_000n;
const TRANSFER_FEE = 100_000n;

export interface TronNodeOptions {
  readonly port?: number;
  /** Block interval (also the timestamp step). Default 3000. */
  readonly blockTimeMs?: number;
  /** Produce blocks on a timer; false: only `mine()`. Default true. */
  readonly autoMine?: boolean;
  /** TRC-20 tokens the node knows (base58). */
  readonly tokens?: readonly string[];
  /** The forwarder factory it emulates: factory and implementation (base58), the hot wallet allowed to sweep, the treasury. */
  readonly factory?: { readonly factory: string; readonly implementation: string; readonly hotWallet: string; readonly treasury: string };
  /** Starting TRX balances (sun), base58 or hex addresses. */
  readonly balances?: Readonly<Record<string, bigint>>;
}

interface SimEvent {
  readonly contract: string;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly txID: string;
  readonly index: number;
}

interface SimInfo {
  readonly blockNumber: number;
  readonly fee: bigint;
  readonly result: 'SUCCESS' | 'REVERT';
  readonly isCall: boolean;
}

interface SimBlock {
  readonly number: number;
  readonly id: string;
  readonly parentHash: string;
  readonly timestamp: number;
  readonly txs: readonly ParsedTronTx[];
  readonly events: readonly SimEvent[];
}

export interface TronNode {
  readonly url: string;
  readonly port: number;
  /** Produces `count` blocks now. */
  mine(count?: number): SimBlock[];
  head(): SimBlock;
  tokenBalance(token: string, address: string): bigint;
  trxBalance(address: string): bigint;
  /** A TRC-20 transfer from the faucet, included in the next block. Returns its txID. */
  transfer(token: string, to: string, amount: bigint): string;
  fund(address: string, sun: bigint): void;
  /** Broadcasts accepted so far (any outcome), and transactions executed. */
  readonly stats: { broadcasts: number; executed: number };
  /** Accept the next `n` broadcasts and lose them (a node that never relays): for expiry tests. */
  dropNextBroadcasts(n: number): void;
  close(): Promise<void>;
}

const b58 = (address: string): string => toTronBase58(address);
const sha256hex = (s: string): string => createHash('sha256').update(s).digest('hex');

export async function startTronNode(options: TronNodeOptions = {}): Promise<TronNode> {
  const blockTimeMs = options.blockTimeMs ?? 3000;
  const tokens = new Set((options.tokens ?? []).map(b58));
  const trx = new Map<string, bigint>();
  const activated = new Set<string>();
  const trc20 = new Map<string, Map<string, bigint>>();
  for (const [a, v] of Object.entries(options.balances ?? {})) {
    trx.set(b58(a), v);
    activated.add(b58(a));
  }
  const genesisTime = Math.floor(Date.now() / 1000) * 1000;
  const blocks: SimBlock[] = [{ number: 0, id: `${'0'.repeat(16)}${sha256hex('genesis').slice(16)}`, parentHash: '0'.repeat(64), timestamp: genesisTime, txs: [], events: [] }];
  const pool: ParsedTronTx[] = [];
  const faucetQueue: { token: string; to: string; amount: bigint; txID: string }[] = [];
  const infos = new Map<string, SimInfo>();
  const known = new Set<string>();
  const stats = { broadcasts: 0, executed: 0 };
  let drop = 0;

  const head = (): SimBlock => blocks[blocks.length - 1] as SimBlock;
  const tokenMap = (token: string): Map<string, bigint> => {
    let m = trc20.get(b58(token));
    if (!m) trc20.set(b58(token), (m = new Map()));
    return m;
  };
  const tokenBalance = (token: string, address: string): bigint => tokenMap(token).get(b58(address)) ?? 0n;
  const moveToken = (token: string, from: string | null, to: string, value: bigint): boolean => {
    const m = tokenMap(token);
    if (from !== null) {
      const have = m.get(b58(from)) ?? 0n;
      if (have < value) return false;
      m.set(b58(from), have - value);
    }
    m.set(b58(to), (m.get(b58(to)) ?? 0n) + value);
    return true;
  };
  const trxBalance = (address: string): bigint => trx.get(b58(address)) ?? 0n;
  const moveTrx = (from: string, to: string | null, value: bigint): boolean => {
    const have = trxBalance(from);
    if (have < value) return false;
    trx.set(b58(from), have - value);
    if (to !== null) {
      trx.set(b58(to), trxBalance(to) + value);
      activated.add(b58(to));
    }
    return true;
  };

  /**
   * Executes a contract (its events appended): false is a revert (nothing changes but the fee). `dry`: only
   * whether it would succeed, nothing changed (triggerconstantcontract).
   */
  function execute(tx: Pick<ParsedTronTx, 'contract' | 'txID'>, events: Omit<SimEvent, 'index'>[], dry = false): boolean {
    const c = tx.contract;
    if (c.kind === 'transfer') return dry ? trxBalance(c.owner) >= c.amount : moveTrx(c.owner, c.to, c.amount);
    const target = b58(c.contract);
    const selector = c.data.slice(0, 10).toLowerCase();
    if (tokens.has(target) && selector === erc20.getFunction('transfer')?.selector) {
      const [to, value] = erc20.decodeFunctionData('transfer', c.data) as unknown as [string, bigint];
      if (dry) return tokenBalance(target, c.owner) >= value;
      if (!moveToken(target, c.owner, to, value)) return false;
      events.push({ contract: target, from: b58(c.owner), to: b58(to), value, txID: tx.txID });
      return true;
    }
    const f = options.factory;
    if (f && target === b58(f.factory) && selector === factoryAbi.getFunction('deployAndFlush')?.selector) {
      if (b58(c.owner) !== b58(f.hotWallet)) return false;
      const [salts, token] = factoryAbi.decodeFunctionData('deployAndFlush', c.data) as unknown as [string[], string];
      if (!tokens.has(b58(token))) return false;
      if (dry) return true;
      for (const salt of salts) {
        const fwd = tronDepositAddress(f.factory, f.implementation, salt);
        const amount = tokenBalance(token, fwd);
        if (amount === 0n) continue;
        moveToken(token, fwd, f.treasury, amount);
        events.push({ contract: b58(token), from: fwd, to: b58(f.treasury), value: amount, txID: tx.txID });
      }
      return true;
    }
    return false;
  }

  function mine(count = 1): SimBlock[] {
    const out: SimBlock[] = [];
    for (let k = 0; k < count; k++) {
      const parent = head();
      const number = parent.number + 1;
      const timestamp = parent.timestamp + blockTimeMs;
      const included: ParsedTronTx[] = [];
      const events: Omit<SimEvent, 'index'>[] = [];
      for (const tx of pool.splice(0)) {
        if (tx.expiration <= timestamp) continue; // expired in the pool: never included
        const isCall = tx.contract.kind === 'trigger';
        const fee = isCall ? CALL_FEE : TRANSFER_FEE;
        moveTrx(tx.contract.owner, null, fee);
        const ok = execute(tx, events);
        infos.set(tx.txID, { blockNumber: number, fee, result: ok ? 'SUCCESS' : 'REVERT', isCall });
        included.push(tx);
        stats.executed++;
      }
      for (const f of faucetQueue.splice(0)) {
        moveToken(f.token, null, f.to, f.amount);
        events.push({ contract: b58(f.token), from: FAUCET, to: b58(f.to), value: f.amount, txID: f.txID });
        infos.set(f.txID, { blockNumber: number, fee: CALL_FEE, result: 'SUCCESS', isCall: true });
      }
      const numberHex = number.toString(16).padStart(16, '0');
      const id = `${numberHex}${sha256hex(`${parent.id}:${number}:${timestamp}:${included.map((t) => t.txID).join(',')}`).slice(16)}`;
      const block: SimBlock = { number, id, parentHash: parent.id, timestamp, txs: included, events: events.map((e, index) => ({ ...e, index })) };
      blocks.push(block);
      out.push(block);
    }
    return out;
  }

  function broadcast(hex: string): Record<string, unknown> {
    stats.broadcasts++;
    const refuse = (code: string, message: string, txid = '') => ({ result: false, code, txid, message: Buffer.from(message).toString('hex') });
    let tx: ParsedTronTx;
    try {
      tx = parseTronTransaction(hex);
    } catch (error) {
      return refuse('OTHER_ERROR', `cannot parse the transaction: ${String(error)}`);
    }
    if (known.has(tx.txID)) return refuse('DUP_TRANSACTION_ERROR', 'dup transaction', tx.txID);
    const sig = tx.signatures[0];
    if (tx.signatures.length !== 1 || !sig) return refuse('SIGERROR', 'one signature expected', tx.txID);
    let signer: string;
    try {
      signer = recoverTronSigner(tx.txID, sig);
    } catch {
      return refuse('SIGERROR', 'bad signature', tx.txID);
    }
    if (signer !== b58(tx.contract.owner)) return refuse('SIGERROR', `signature is not the owner's (${signer})`, tx.txID);
    const now = head().timestamp;
    if (tx.expiration <= now || tx.expiration > now + 24 * 3600_000) return refuse('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired', tx.txID);
    const ref = blocks.find((b) => b.id.slice(12, 16) === tx.refBlockBytes && b.id.slice(16, 32) === tx.refBlockHash);
    if (!ref) return refuse('TAPOS_ERROR', 'Tapos check error', tx.txID);
    const c = tx.contract;
    const needed = c.kind === 'transfer' ? c.amount + TRANSFER_FEE : c.callValue + CALL_FEE;
    if (trxBalance(c.owner) < needed) return refuse('CONTRACT_VALIDATE_ERROR', 'Validate TransferContract error, balance is not sufficient.', tx.txID);
    known.add(tx.txID);
    if (drop > 0) drop--;
    else pool.push(tx);
    return { result: true, txid: tx.txID };
  }

  const blockJson = (b: SimBlock) => ({
    blockID: b.id,
    block_header: { raw_data: { number: b.number, txTrieRoot: '0'.repeat(64), witness_address: '41'.padEnd(42, '0'), parentHash: b.parentHash, version: 30, timestamp: b.timestamp }, witness_signature: '' },
    ...(b.txs.length === 0
      ? {}
      : {
          transactions: b.txs.map((t) => ({
            ret: [{ contractRet: infos.get(t.txID)?.result ?? 'SUCCESS' }],
            signature: t.signatures.map((s) => Buffer.from(s).toString('hex')),
            txID: t.txID,
            raw_data: {
              contract: [
                t.contract.kind === 'transfer'
                  ? { type: 'TransferContract', parameter: { value: { amount: Number(t.contract.amount), owner_address: b58(t.contract.owner), to_address: b58(t.contract.to) }, type_url: 'type.googleapis.com/protocol.TransferContract' } }
                  : { type: 'TriggerSmartContract', parameter: { value: { data: t.contract.data.slice(2), owner_address: b58(t.contract.owner), contract_address: b58(t.contract.contract), call_value: Number(t.contract.callValue) }, type_url: 'type.googleapis.com/protocol.TriggerSmartContract' } },
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
    result: { '0': tronAddressToEvmHex(e.from), '1': tronAddressToEvmHex(e.to), '2': e.value.toString(), from: tronAddressToEvmHex(e.from), to: tronAddressToEvmHex(e.to), value: e.value.toString() },
    result_type: { from: 'address', to: 'address', value: 'uint256' },
    event: 'Transfer(address indexed from, address indexed to, uint256 value)',
    transaction_id: e.txID,
  });

  async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  }

  function route(method: string, path: string, query: URLSearchParams, b: Record<string, unknown>): unknown {
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
        return activated.has(address) ? { address, balance: Number(trxBalance(address)), create_time: genesisTime } : {};
      }
      case '/wallet/broadcasthex':
        return broadcast(String(b.transaction));
      case '/wallet/triggerconstantcontract': {
        const contract = { kind: 'trigger' as const, owner: b58(String(b.owner_address)), contract: b58(String(b.contract_address)), callValue: BigInt(Number(b.call_value ?? 0)), data: `0x${String(b.data ?? '')}` };
        const ok = execute({ contract, txID: '' }, [], true);
        return ok
          ? { result: { result: true }, energy_used: 14_650, constant_result: ['0'.repeat(63) + '1'], transaction: { ret: [{}] } }
          : { result: { result: true, message: Buffer.from('REVERT opcode executed').toString('hex') }, energy_used: 3_000, constant_result: [''], transaction: { ret: [{ ret: 'FAILED' }] } };
      }
      case '/wallet/gettransactioninfobyid': {
        const id = String(b.value).toLowerCase();
        const info = infos.get(id);
        const block = info ? blocks[info.blockNumber] : undefined;
        if (!info || !block) return {};
        return {
          id,
          fee: Number(info.fee),
          blockNumber: info.blockNumber,
          blockTimeStamp: block.timestamp,
          contractResult: [''],
          ...(info.isCall ? { receipt: { energy_usage_total: 14_650, energy_fee: Number(info.fee), result: info.result } } : { receipt: { net_fee: Number(info.fee) } }),
          ...(info.result === 'REVERT' ? { result: 'FAILED', resMessage: Buffer.from('REVERT opcode executed').toString('hex') } : {}),
        };
      }
      case '/_local/transfer':
        return { txid: api.transfer(String(b.token), String(b.to), BigInt(String(b.amount))) };
      case '/_local/fund':
        api.fund(String(b.address), BigInt(String(b.amount)));
        return { ok: true };
      case '/_local/mine':
        return { blocks: mine(Number(b.count ?? 1)).map((x) => x.number) };
      default:
        return undefined;
    }
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const reply = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    body(req)
      .then((b) => {
        const answer = route(req.method ?? 'GET', url.pathname, url.searchParams, b);
        if (answer === undefined) reply(404, { Error: `no such endpoint: ${req.method} ${url.pathname}` });
        else reply(200, answer);
      })
      .catch((error: unknown) => reply(400, { Error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const timer = options.autoMine === false ? undefined : setInterval(() => mine(1), blockTimeMs);
  timer?.unref();
  let faucetSeq = 0;

  const api: TronNode = {
    url: `http://127.0.0.1:${port}`,
    port,
    mine,
    head,
    tokenBalance,
    trxBalance,
    transfer(token, to, amount) {
      const txID = sha256hex(`faucet:${faucetSeq++}:${token}:${to}:${amount}:${head().number}`);
      faucetQueue.push({ token, to, amount, txID });
      return txID;
    },
    fund(address, sun) {
      trx.set(b58(address), trxBalance(address) + sun);
      activated.add(b58(address));
    },
    stats,
    dropNextBroadcasts(n) {
      drop = n;
    },
    async close() {
      if (timer) clearInterval(timer);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}
