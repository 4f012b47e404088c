/**
 * The state of the local TRON node: accounts (TRX and TRC-20 balances), the transaction pool, blocks and
 * transaction infos; what it checks of a broadcast and what it executes (see infra/local/tron.ts).
 */
import { createHash } from 'node:crypto';
import { Interface } from 'ethers';
import { FORWARDER_FACTORY_ABI } from '../../../shared/chain/evm/abi.js';
import { tronDepositAddress } from '../../../shared/chain/tron/create2.js';
import { toTronBase58, tronAddressFromBytes } from '../../../shared/domain/chain-addresses.js';
import type { ParsedTronTx } from '../../../shared/chain/tron/transaction.js';
import { parseTronTransaction, recoverTronSigner } from '../../../shared/chain/tron/transaction.js';

const erc20 = new Interface(['function transfer(address to, uint256 value) returns (bool)']);
const factoryAbi = new Interface(FORWARDER_FACTORY_ABI);
/** Where `/_local/transfer` tokens come from (0x41 ‖ 0x11…11). */
const FAUCET = tronAddressFromBytes(Uint8Array.from([0x41, ...new Array<number>(20).fill(0x11)]));
/** Sun burnt per contract call (energy), and per TRX transfer (bandwidth). */
const CALL_FEE = 5_000_000n;
const TRANSFER_FEE = 100_000n;

export const b58 = (address: string): string => toTronBase58(address);
const sha256hex = (s: string): string => createHash('sha256').update(s).digest('hex');

export interface TronChainOptions {
  /** Block interval (also the timestamp step). Default 3000. */
  readonly blockTimeMs?: number;
  /** TRC-20 tokens the node knows (base58). */
  readonly tokens?: readonly string[];
  /** The forwarder factory it emulates: factory and implementation (base58), the hot wallet allowed to sweep, the treasury. */
  readonly factory?: { readonly factory: string; readonly implementation: string; readonly hotWallet: string; readonly treasury: string };
  /** Starting TRX balances (sun), base58 or hex addresses. */
  readonly balances?: Readonly<Record<string, bigint>>;
}

export interface SimEvent {
  readonly contract: string;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly txID: string;
  readonly index: number;
}

export interface SimInfo {
  readonly blockNumber: number;
  readonly fee: bigint;
  readonly result: 'SUCCESS' | 'REVERT';
  readonly isCall: boolean;
}

export interface SimBlock {
  readonly number: number;
  readonly id: string;
  readonly parentHash: string;
  readonly timestamp: number;
  readonly txs: readonly ParsedTronTx[];
  readonly events: readonly SimEvent[];
}

export interface TronChain {
  readonly genesisTime: number;
  /** Every block by number. */
  readonly blocks: readonly SimBlock[];
  head(): SimBlock;
  /** Produces `count` blocks now. */
  mine(count?: number): SimBlock[];
  /** Checks and pools a signed transaction; the answer of `/wallet/broadcasthex`. */
  broadcast(hex: string): Record<string, unknown>;
  /** Whether a contract call would succeed now (nothing changes). */
  wouldSucceed(tx: Pick<ParsedTronTx, 'contract' | 'txID'>): boolean;
  info(txID: string): SimInfo | undefined;
  isActivated(address: string): boolean;
  tokenBalance(token: string, address: string): bigint;
  trxBalance(address: string): bigint;
  /** A TRC-20 transfer from the faucet, included in the next block. Returns its txID. */
  transfer(token: string, to: string, amount: bigint): string;
  fund(address: string, sun: bigint): void;
  /** Broadcasts accepted so far (any outcome), and transactions executed. */
  readonly stats: { broadcasts: number; executed: number };
  /** Accept the next `n` broadcasts and lose them (a node that never relays): for expiry tests. */
  dropNextBroadcasts(n: number): void;
}

export function createTronChain(options: TronChainOptions = {}): TronChain {
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
  const blocks: SimBlock[] = [
    { number: 0, id: `${'0'.repeat(16)}${sha256hex('genesis').slice(16)}`, parentHash: '0'.repeat(64), timestamp: genesisTime, txs: [], events: [] },
  ];
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

  /** TronGrid's `event_index` counts a transaction's own events, not the block's. */
  function indexedPerTransaction(events: readonly Omit<SimEvent, 'index'>[]): SimEvent[] {
    const counts = new Map<string, number>();
    return events.map((e) => {
      const index = counts.get(e.txID) ?? 0;
      counts.set(e.txID, index + 1);
      return { ...e, index };
    });
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
      const block: SimBlock = { number, id, parentHash: parent.id, timestamp, txs: included, events: indexedPerTransaction(events) };
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

  let faucetSeq = 0;
  return {
    genesisTime,
    blocks,
    head,
    mine,
    broadcast,
    wouldSucceed: (tx) => execute(tx, [], true),
    info: (txID) => infos.get(txID),
    isActivated: (address) => activated.has(b58(address)),
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
  };
}
