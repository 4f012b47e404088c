/**
 * Bitcoin adapters of the engine's ports: an Esplora-compatible HTTP API (Blockstream's esplora/electrs, a
 * provider, or the local node) as a `BtcChainPort`, and the batch builder (shared/chain/btc/transaction.ts) with
 * the hot wallet's KMS key as a `BtcTxBuilderPort`. The node's broadcast answers are classified here so the use
 * cases never parse text.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import type { BroadcastOutcome, BtcBatchPlan, BtcChainPort, BtcPlanOutcome, BtcTxBuilderPort } from '../../usecases/chain-tx/ports.js';
import type { TxPlace } from '../../usecases/deposits/ports.js';
import { txPlace } from '../btc/deposit-source.js';
import type { EsploraClient } from '../btc/esplora.js';
import type { BtcNetwork } from '../btc/p2wsh.js';
import type { BatchSigner } from '../btc/transaction.js';
import { CHANGE_TAG_HEX, InsufficientCoinsError, InvalidPayoutError, planBatch, signBatch } from '../btc/transaction.js';
import { KmsBtcSigner } from '../signer/kms-btc-signer.js';

/** The calls of the Esplora client (shared/chain/btc/esplora.ts) the engine makes. */
export type EsploraEngineApi = Pick<EsploraClient, 'tipHeight' | 'feeEstimates' | 'txStatus' | 'tx' | 'broadcast'>;

/**
 * A refused broadcast: `known` when the transaction (or another attempt of the same request, which spends the
 * same coins) is already in the mempool or a block; undefined (an error) otherwise.
 */
export function classifyBtcBroadcast(message: string): BroadcastOutcome | undefined {
  const text = message.slice(0, 300);
  if (
    /already in block chain|outputs already in utxo set|already known|txn-already-in-mempool|txn-already-known|txn-mempool-conflict|inputs-missingorspent|missing inputs/i.test(
      text,
    )
  ) {
    return { kind: 'known', message: text };
  }
  return undefined;
}

export class BtcBroadcastError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BtcBroadcastError';
  }
}

/** The fee rate for confirmation within `targetBlocks`: the estimate of the nearest target at or above it, else 1 sat/vB. */
export function feeRateOf(estimates: Record<string, number>, targetBlocks: number): bigint {
  const targets = Object.keys(estimates)
    .map(Number)
    .filter((t) => Number.isInteger(t) && t > 0)
    .sort((a, b) => a - b);
  const target = targets.find((t) => t >= targetBlocks) ?? targets[targets.length - 1];
  const rate = target === undefined ? undefined : estimates[String(target)];
  if (rate === undefined || !Number.isFinite(rate) || rate <= 1) return 1n;
  return BigInt(Math.ceil(rate));
}

export class EsploraBtcChain implements BtcChainPort {
  readonly #api: EsploraEngineApi;
  readonly #targetBlocks: number;

  constructor(api: EsploraEngineApi, options: { targetBlocks?: number } = {}) {
    this.#api = api;
    this.#targetBlocks = options.targetBlocks ?? 3;
  }

  tipHeight(): Promise<number> {
    return this.#api.tipHeight();
  }

  async feeRate(): Promise<bigint> {
    return feeRateOf(await this.#api.feeEstimates(), this.#targetBlocks);
  }

  status(txid: string): Promise<TxPlace> {
    return txPlace(this.#api, txid);
  }

  async broadcast(raw: string): Promise<BroadcastOutcome> {
    const answer = await this.#api.broadcast(raw);
    if (answer.ok) return { kind: 'accepted' };
    const outcome = classifyBtcBroadcast(answer.message);
    if (!outcome) throw new BtcBroadcastError(`broadcast refused: ${answer.message.slice(0, 300)}`);
    return outcome;
  }
}

/** KMS signers per key id (each caches its public key): what the builder signs with in a deployment. */
export function kmsBtcSigners(kms: KMSClient): (keyId: string) => KmsBtcSigner {
  const signers = new Map<string, KmsBtcSigner>();
  return (keyId) => {
    let signer = signers.get(keyId);
    if (!signer) {
      signer = new KmsBtcSigner(kms, keyId);
      signers.set(keyId, signer);
    }
    return signer;
  };
}

/** Plans and signs batches with the hot wallet's key (`signerFor`: KMS in a deployment, `kmsBtcSigners`). */
export class BtcBatchBuilder implements BtcTxBuilderPort {
  readonly changeTag = CHANGE_TAG_HEX;
  readonly signerFor: (keyId: string) => BatchSigner;
  readonly #network: BtcNetwork;

  constructor(signerFor: (keyId: string) => BatchSigner, network: BtcNetwork) {
    this.signerFor = signerFor;
    this.#network = network;
  }

  async plan(input: Parameters<BtcTxBuilderPort['plan']>[0]): Promise<BtcPlanOutcome> {
    const hotPublicKey = await this.signerFor(input.keyId).publicKey();
    try {
      const plan = planBatch({
        network: this.#network,
        hotPublicKey,
        payouts: input.payouts,
        coins: input.coins,
        feeRate: input.feeRate,
        ...(input.fixedInputs ? { fixedInputs: true } : {}),
        ...(input.replacesFee === undefined ? {} : { replacesFee: input.replacesFee }),
      });
      return { ok: true, plan };
    } catch (error) {
      if (error instanceof InsufficientCoinsError) return { ok: false, reason: 'insufficient', needed: error.needed, available: error.available };
      if (error instanceof InvalidPayoutError) return { ok: false, reason: 'invalid_output', message: error.message };
      throw error;
    }
  }

  async sign(keyId: string, plan: BtcBatchPlan): Promise<{ txid: string; raw: string; vsize: number }> {
    const signed = await signBatch(plan, this.signerFor(keyId), this.#network);
    return { txid: signed.txid, raw: signed.raw, vsize: signed.vsize };
  }
}
