/**
 * Bitcoin adapters of the engine's ports: an Esplora-compatible HTTP API (Blockstream's esplora/electrs, a
 * provider, or the local node) as a `BtcChainPort`, and the batch builder (shared/chain/btc/transaction.ts) with
 * the hot wallet's KMS key as a `BtcTxBuilderPort`. The node's broadcast answers are classified here so the use
 * cases never parse text.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import type { BroadcastOutcome, BtcBatchPlan, BtcChainPort, BtcPlanOutcome, BtcTxBuilderPort, BtcTxStatus } from '../../usecases/chain-tx/ports.js';
import type { BtcNetwork } from '../btc/p2wsh.js';
import type { BatchSigner } from '../btc/transaction.js';
import { CHANGE_TAG_HEX, InsufficientCoinsError, planBatch, signBatch } from '../btc/transaction.js';
import { KmsBtcSigner } from '../signer/kms-btc-signer.js';

/** The calls of an Esplora-compatible API the engine makes. */
export interface EsploraEngineApi {
  tipHeight(): Promise<number>;
  /** `/fee-estimates`: confirmation target (blocks) -> sat/vB. */
  feeEstimates(): Promise<Record<string, number>>;
  /** `/tx/:txid/status`; null when the node does not know the transaction (404). */
  txStatus(txid: string): Promise<{ confirmed: boolean; block_height?: number } | null>;
  /** `POST /tx`: the txid, or an error carrying the node's answer. */
  broadcast(raw: string): Promise<string>;
}

export class EsploraHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    path: string,
  ) {
    super(`Esplora ${path}: HTTP ${status} ${body.slice(0, 300)}`);
    this.name = 'EsploraHttpError';
  }
}

/** A minimal fetch client of those calls (timeouts on every call). */
export function esploraEngineApi(baseUrl: string, timeoutMs = 10_000): EsploraEngineApi {
  const base = baseUrl.replace(/\/+$/, '');
  const call = async (path: string, init?: RequestInit): Promise<{ status: number; text: string }> => {
    const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.status, text: await response.text() };
  };
  const ok = async (path: string, init?: RequestInit): Promise<string> => {
    const { status, text } = await call(path, init);
    if (status < 200 || status >= 300) throw new EsploraHttpError(status, text, path);
    return text;
  };
  return {
    async tipHeight() {
      const height = Number((await ok('/blocks/tip/height')).trim());
      if (!Number.isSafeInteger(height) || height < 0) throw new Error('Esplora /blocks/tip/height: not a height');
      return height;
    },
    async feeEstimates() {
      return JSON.parse(await ok('/fee-estimates')) as Record<string, number>;
    },
    async txStatus(txid) {
      const path = `/tx/${encodeURIComponent(txid)}/status`;
      const { status, text } = await call(path);
      if (status === 404) return null;
      if (status !== 200) throw new EsploraHttpError(status, text, path);
      return JSON.parse(text) as { confirmed: boolean; block_height?: number };
    },
    async broadcast(raw) {
      return (await ok('/tx', { method: 'POST', body: raw, headers: { 'content-type': 'text/plain' } })).trim();
    },
  };
}

/**
 * A refused broadcast: `known` when the transaction (or another attempt of the same request, which spends the
 * same coins) is already in the mempool or a block; undefined (an error) otherwise.
 */
export function classifyBtcBroadcast(message: string): BroadcastOutcome | undefined {
  const text = message.slice(0, 300);
  if (/already in block chain|already known|txn-already-in-mempool|txn-already-known|txn-mempool-conflict|inputs-missingorspent|missing inputs/i.test(text)) {
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

  async status(txid: string): Promise<BtcTxStatus> {
    const status = await this.#api.txStatus(txid);
    if (!status) return { state: 'unknown' };
    if (status.confirmed && typeof status.block_height === 'number') return { state: 'confirmed', blockHeight: status.block_height };
    return { state: 'mempool' };
  }

  async broadcast(raw: string): Promise<BroadcastOutcome> {
    try {
      await this.#api.broadcast(raw);
      return { kind: 'accepted' };
    } catch (error) {
      const message = error instanceof EsploraHttpError ? error.body : error instanceof Error ? error.message : String(error);
      const outcome = error instanceof EsploraHttpError ? classifyBtcBroadcast(message) : undefined;
      if (!outcome) throw new BtcBroadcastError(`broadcast refused: ${message.slice(0, 300)}`);
      return outcome;
    }
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
      if (error instanceof InsufficientCoinsError) return { ok: false, needed: error.needed, available: error.available };
      throw error;
    }
  }

  async sign(keyId: string, plan: BtcBatchPlan): Promise<{ txid: string; raw: string; vsize: number }> {
    const signed = await signBatch(plan, this.signerFor(keyId), this.#network);
    return { txid: signed.txid, raw: signed.raw, vsize: signed.vsize };
  }
}
