/**
 * TRON adapters of the engine's ports: the TronGrid-compatible API (and the offline transaction codec,
 * shared/chain/tron/transaction.ts) as a `TronChainPort`, and KMS signing of a built transaction. java-tron's
 * broadcast codes are classified here so the use cases never parse text.
 */
import { getBytes } from 'ethers';
import type { KmsTxSigner } from './evm.js';
import type {
  BroadcastOutcome,
  SignedTx,
  TronBlockRef,
  TronChainPort,
  TronSignerPort,
  TronTxSpec,
  TxReceipt,
  UnsignedTronTx,
} from '../../usecases/chain-tx/ports.js';
import type { TronBroadcastAnswer, TronGridClient } from '../tron/grid.js';
import { broadcastMessage } from '../tron/grid.js';
import { buildTronTransaction, signedTronTransactionHex } from '../tron/transaction.js';
import { toTronBase58 } from '../../domain/chain-addresses.js';

/** A refused broadcast: a known outcome, or undefined when it is an error (bad signature, bad TAPOS, ...). */
export function classifyTronBroadcast(answer: TronBroadcastAnswer): BroadcastOutcome | undefined {
  if (answer.result === true) return { kind: 'accepted' };
  const message = `${answer.code ?? 'UNKNOWN'}: ${broadcastMessage(answer)}`.slice(0, 300);
  switch (answer.code) {
    case 'DUP_TRANSACTION_ERROR':
      return { kind: 'known', message };
    case 'TRANSACTION_EXPIRATION_ERROR':
      return { kind: 'expired', message };
    case 'BANDWITH_ERROR':
      return { kind: 'insufficient_funds', message };
    case 'CONTRACT_VALIDATE_ERROR':
      // "balance is not sufficient", "Validate TransferContract error, balance is not sufficient."
      return /balance is not sufficient|not enough|insufficient/i.test(message) ? { kind: 'insufficient_funds', message } : undefined;
    default:
      return undefined;
  }
}

export class TronBroadcastError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TronBroadcastError';
  }
}

export class TronGridChain implements TronChainPort {
  readonly client: TronGridClient;

  constructor(client: TronGridClient) {
    this.client = client;
  }

  async head(): Promise<TronBlockRef> {
    const b = await this.client.nowBlock();
    return { number: b.number, id: b.id, timestamp: b.timestamp };
  }

  async block(number: number): Promise<TronBlockRef | null> {
    const b = await this.client.blockByNum(number);
    return b ? { number: b.number, id: b.id, timestamp: b.timestamp } : null;
  }

  async balance(address: string): Promise<bigint> {
    return (await this.client.account(toTronBase58(address))).balance;
  }

  async isActivated(address: string): Promise<boolean> {
    return (await this.client.account(toTronBase58(address))).exists;
  }

  async dryRun(call: { owner: string; contract: string; data: string; callValue: bigint }): Promise<{ ok: boolean; message: string }> {
    const out = await this.client.triggerConstant({ ...call, owner: toTronBase58(call.owner), contract: toTronBase58(call.contract) });
    return { ok: out.ok, message: out.message };
  }

  build(spec: TronTxSpec): UnsignedTronTx {
    const { call, refBlock, expiration, timestamp, feeLimit } = spec;
    return buildTronTransaction({ refBlock, expiration, timestamp, feeLimit, contract: call });
  }

  async broadcast(signedHex: string): Promise<BroadcastOutcome> {
    const answer = await this.client.broadcastHex(signedHex);
    const outcome = classifyTronBroadcast(answer);
    if (!outcome) throw new TronBroadcastError(`broadcast refused: ${answer.code ?? 'UNKNOWN'} ${broadcastMessage(answer)}`.trim());
    return outcome;
  }

  async receipt(txID: string): Promise<TxReceipt | null> {
    const info = await this.client.transactionInfo(txID.replace(/^0x/, ''));
    if (!info) return null;
    return { hash: txID, blockNumber: info.blockNumber, status: info.success ? 1 : 0, gasUsed: info.fee };
  }
}

/** TRON signatures from the same KMS keys as EVM ones (one secp256k1 key: one EVM and one TRON address). */
export class KmsTronSigner implements TronSignerPort {
  readonly #signers: KmsTxSigner;

  constructor(signers: KmsTxSigner) {
    this.#signers = signers;
  }

  /** The transaction signed over its id: 65 bytes r ‖ s ‖ v appended to its raw data. */
  async sign(keyId: string, tx: UnsignedTronTx): Promise<SignedTx> {
    const signature = await this.#signers.signerFor(keyId).signDigest(`0x${tx.txID.replace(/^0x/, '')}`);
    return { hash: tx.txID, raw: signedTronTransactionHex(tx, getBytes(signature.serialized)) };
  }
}
