import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Address, OutScript, SigHash, Transaction, selectUTXO } from '@scure/btc-signer';
import { BTC_DUST_LIMITS, btcSignerNetwork } from '../../domain/bitcoin.js';
import type { BtcOutputType } from '../../domain/bitcoin.js';
import type { BtcNetwork } from './p2wsh.js';
import { depositTag, depositWitnessScript, p2wshAddress, p2wshOutputScript } from './p2wsh.js';

/**
 * A batch payout on Bitcoin (DESIGN section 12), pure: no I/O but the signer it is given.
 *
 * - `planBatch`: which of the hot wallet's coins pay the batch's outputs at a fee rate, the change back to the hot
 *   wallet's change address (dropped to the fee below the dust limit), the fee, and each payout's share of it. The
 *   coins are chosen by `@scure/btc-signer`'s `selectUTXO` (strategy `default`: an exact match among the biggest,
 *   else the biggest accumulated). Its estimator cannot size the gateway's witness script (it sees an unknown
 *   script and counts the script alone, not the signature pushed before it: 73 weight units short per input), so
 *   each coin is offered at its value less the fee of what the estimator misses; the fee and the change are then
 *   computed here exactly from the transaction's weight (signatures counted at their 72-byte maximum).
 * - `signBatch`: the transaction (version 2, every input signalling replaceability, nSequence 0xfffffffd), each
 *   input signed ONCE by the signer over its BIP143 sighash (SIGHASH_ALL), the witness `[signature, witness
 *   script]`; every signature verified before the transaction is returned with its txid and raw hex.
 * - `dustLimit`: the smallest output a node relays, per output type: what a withdrawal must reach.
 */

/** The hot wallet's change tag: its change address is the P2WSH of `<tag> OP_DROP <hot key> OP_CHECKSIG`. */
export const CHANGE_TAG: Uint8Array = depositTag('platform', 'hot-change');
export const CHANGE_TAG_HEX: string = hex.encode(CHANGE_TAG);

/** Every input signals replaceability (BIP125): below 0xfffffffe. */
export const RBF_SEQUENCE = 0xfffffffd;
export const TX_VERSION = 2;
/** BIP125 rule 4: a replacement pays for its own size at the incremental relay rate (1 sat/vB) on top. */
export const INCREMENTAL_RELAY_SAT_PER_VB = 1n;
/** Longest witness signature: strict DER of low-s (r up to 33 bytes, s up to 32) is at most 71 bytes, + sighash type. */
const MAX_SIGNATURE_BYTES = 72;

/** btc-signer's network parameters of each deployment network (regtest: `bcrt`, 0x6f, 0xc4, 0xef). */
export const BTC_SIGNER_NETWORKS: Readonly<Record<BtcNetwork, ReturnType<typeof btcSignerNetwork>>> = {
  mainnet: btcSignerNetwork('mainnet'),
  testnet: btcSignerNetwork('testnet'),
  local: btcSignerNetwork('local'),
};

/** The output script an address pays (throws for an address of another network or not an address). */
export function outputScriptOf(address: string, network: BtcNetwork): Uint8Array {
  return OutScript.encode(Address(BTC_SIGNER_NETWORKS[network]).decode(address));
}

/** btc-signer's names of the standard output types. */
const OUTPUT_TYPES: Readonly<Record<string, BtcOutputType>> = { pkh: 'p2pkh', sh: 'p2sh', wpkh: 'p2wpkh', wsh: 'p2wsh', tr: 'p2tr' };

/** The smallest amount (satoshis) an output to `address` may carry: P2PKH 546, P2SH 540, P2WPKH 294, P2WSH and P2TR 330. */
export function dustLimit(address: string, network: BtcNetwork): bigint {
  const type = OutScript.decode(outputScriptOf(address, network)).type;
  const standard = OUTPUT_TYPES[type];
  const limit = standard === undefined ? undefined : BTC_DUST_LIMITS[standard];
  if (limit === undefined) throw new TypeError(`No dust limit for an output of type ${type}`);
  return limit;
}

/** The hot wallet's change address and its witness script. */
export function changeOutput(hotPublicKey: Uint8Array, network: BtcNetwork): { address: string; witnessScript: Uint8Array; script: Uint8Array } {
  const witnessScript = depositWitnessScript(CHANGE_TAG, hotPublicKey);
  return { address: p2wshAddress(witnessScript, network), witnessScript, script: p2wshOutputScript(witnessScript) };
}

/** A coin of the hot wallet as the plan takes it (HotCoin of shared/usecases/coins/ports.ts). */
export interface PlanCoin {
  readonly txid: string;
  readonly vout: number;
  readonly value: bigint;
  /** The witness script's tag, 64 hex digits. */
  readonly tag: string;
}

/** One payout of a batch: what it settles (`item`), where, how many satoshis. */
export interface BtcPayout {
  readonly item: string;
  readonly address: string;
  readonly value: bigint;
}

export interface PlanInput {
  readonly network: BtcNetwork;
  readonly hotPublicKey: Uint8Array;
  readonly payouts: readonly BtcPayout[];
  /** Candidate coins; with `fixedInputs` exactly the coins spent. */
  readonly coins: readonly PlanCoin[];
  /** Sat/vB. */
  readonly feeRate: bigint;
  /** Spend every coin given (a replacement keeps its inputs); else a selection of them. */
  readonly fixedInputs?: boolean;
  /** A replacement: the fee of the attempt it replaces (BIP125: the new fee covers it plus its own size at 1 sat/vB). */
  readonly replacesFee?: bigint;
}

export interface BtcPlan {
  readonly inputs: readonly PlanCoin[];
  /** Payouts in order, then the change if any (its index is `payouts.length`). */
  readonly payouts: readonly BtcPayout[];
  readonly change: { readonly vout: number; readonly value: bigint; readonly address: string } | null;
  readonly fee: bigint;
  readonly feeRate: bigint;
  /** The transaction's weight with every signature at its maximum size (what the fee pays for). */
  readonly weight: number;
  readonly vsize: number;
  /** Each payout's share of the fee (by weight), in payout order; they sum to `fee`. */
  readonly shares: readonly bigint[];
}

/** A payout no transaction can carry: not an address of the network, or below its dust limit. */
export class InvalidPayoutError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidPayoutError';
  }
}

/** Why a plan could not be made: the coins cannot cover the outputs and fee. */
export class InsufficientCoinsError extends Error {
  constructor(
    readonly needed: bigint,
    readonly available: bigint,
  ) {
    super(`The hot wallet's coins (${available} sat) cannot cover the batch (${needed} sat and its fee)`);
    this.name = 'InsufficientCoinsError';
  }
}

const compactSize = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : 5);
const outputBytes = (scriptLength: number): number => 8 + compactSize(scriptLength) + scriptLength;
/** Version + locktime, input count and output count around inputs of empty scriptSig (41 bytes each). */
const baseBytes = (inputs: number, outputScripts: readonly number[]): number =>
  8 + compactSize(inputs) + 41 * inputs + compactSize(outputScripts.length) + outputScripts.reduce((n, l) => n + outputBytes(l), 0);
/** Witness: marker and flag, then per input two items: the signature and the witness script. */
const witnessBytes = (inputs: number, witnessScriptLength: number): number =>
  2 + inputs * (1 + 1 + MAX_SIGNATURE_BYTES + compactSize(witnessScriptLength) + witnessScriptLength);

/** The weight of a batch of `inputs` gateway inputs paying outputs of these script lengths (signatures at their maximum). */
export function batchWeight(inputs: number, outputScripts: readonly number[], witnessScriptLength = 69): number {
  return 4 * baseBytes(inputs, outputScripts) + witnessBytes(inputs, witnessScriptLength);
}

const vsizeOf = (weight: number): number => Math.ceil(weight / 4);

/**
 * Splits `fee` over the payouts by weight: each its output's weight plus an equal part of the rest (header, inputs,
 * change), by largest remainder so that the shares sum exactly to the fee (ties to the earlier payout).
 */
export function feeShares(fee: bigint, payoutWeights: readonly number[], totalWeight: number): bigint[] {
  const n = BigInt(payoutWeights.length);
  if (n === 0n) return [];
  const shared = BigInt(totalWeight - payoutWeights.reduce((a, b) => a + b, 0));
  const denominator = n * BigInt(totalWeight);
  const exact = payoutWeights.map((w) => fee * (n * BigInt(w) + shared));
  const shares = exact.map((x) => x / denominator);
  let left = fee - shares.reduce((a, b) => a + b, 0n);
  const order = exact.map((x, i) => ({ i, rest: x % denominator })).sort((a, b) => (a.rest === b.rest ? a.i - b.i : a.rest > b.rest ? -1 : 1));
  for (const { i } of order) {
    if (left === 0n) break;
    shares[i] = (shares[i] as bigint) + 1n;
    left--;
  }
  return shares;
}

/** The fee of a transaction of `weight`: its rate, and for a replacement at least the old fee plus its size at 1 sat/vB. */
function feeFor(weight: number, feeRate: bigint, replacesFee: bigint | undefined): bigint {
  const vsize = BigInt(vsizeOf(weight));
  const byRate = feeRate * vsize;
  if (replacesFee === undefined) return byRate;
  const byRule = replacesFee + INCREMENTAL_RELAY_SAT_PER_VB * vsize;
  return byRate > byRule ? byRate : byRule;
}

/** Coins chosen by btc-signer's selector (see the module's comment for the witness it cannot size). */
function selectCoins(input: PlanInput, payoutScripts: readonly Uint8Array[], change: ReturnType<typeof changeOutput>): PlanCoin[] | null {
  const { network, hotPublicKey, coins, feeRate } = input;
  // The estimator counts the witness script (and its length byte, and the item count) but not the signature item.
  const unseenVbytes = BigInt(Math.ceil((1 + MAX_SIGNATURE_BYTES) / 4));
  const offered = coins
    .map((coin) => ({ coin, witnessScript: depositWitnessScript(hex.decode(coin.tag), hotPublicKey) }))
    .filter(({ coin }) => coin.value > (unseenVbytes + 80n) * feeRate);
  if (offered.length === 0) return null;
  const selected = selectUTXO(
    offered.map(({ coin, witnessScript }) => ({
      txid: hex.decode(coin.txid),
      index: coin.vout,
      sequence: RBF_SEQUENCE,
      witnessScript,
      witnessUtxo: { script: p2wshOutputScript(witnessScript), amount: coin.value - unseenVbytes * feeRate },
    })),
    input.payouts.map((p, i) => ({ script: payoutScripts[i] as Uint8Array, amount: p.value })),
    'default',
    {
      feePerByte: feeRate,
      changeAddress: change.address,
      network: BTC_SIGNER_NETWORKS[network],
      createTx: false,
      bip69: false,
      allowUnknownInputs: true,
      allowSameUtxo: false,
    },
  );
  if (!selected) return null;
  const byOutpoint = new Map(offered.map(({ coin }) => [`${coin.txid}:${coin.vout}`, coin]));
  return selected.inputs.map((i) => {
    const coin = byOutpoint.get(`${hex.encode(i.txid as Uint8Array)}:${i.index as number}`);
    if (!coin) throw new Error('the selector returned a coin it was not offered');
    return coin;
  });
}

/**
 * The batch's plan: coins, outputs, change, fee and shares; InsufficientCoinsError when the coins cannot pay it.
 * Payouts below their address's dust limit, or not addresses of the network, are refused (InvalidPayoutError).
 */
export function planBatch(input: PlanInput): BtcPlan {
  const { network, hotPublicKey, payouts, feeRate } = input;
  if (payouts.length === 0) throw new RangeError('A batch pays at least one output');
  if (feeRate < 1n) throw new RangeError(`fee rate ${feeRate} sat/vB is below the 1 sat/vB relay minimum`);
  const payoutScripts = payouts.map((p) => {
    let limit: bigint;
    try {
      limit = dustLimit(p.address, network);
    } catch (error) {
      throw new InvalidPayoutError(`${p.item}: ${p.address} is not an address of the ${network} network`, { cause: error });
    }
    if (p.value < limit) throw new InvalidPayoutError(`${p.item}: ${p.value} sat to ${p.address} is below its dust limit of ${limit}`);
    return outputScriptOf(p.address, network);
  });
  const change = changeOutput(hotPublicKey, network);
  const outTotal = payouts.reduce((n, p) => n + p.value, 0n);
  const coins = input.fixedInputs ? [...input.coins] : selectCoins(input, payoutScripts, change);
  const available = input.coins.reduce((n, c) => n + c.value, 0n);
  if (!coins || coins.length === 0) throw new InsufficientCoinsError(outTotal, available);
  const total = coins.reduce((n, c) => n + c.value, 0n);
  const scripts = payoutScripts.map((s) => s.length);
  const weightWithChange = batchWeight(coins.length, [...scripts, change.script.length]);
  const weightWithout = batchWeight(coins.length, scripts);
  const feeWithChange = feeFor(weightWithChange, feeRate, input.replacesFee);
  const feeWithout = feeFor(weightWithout, feeRate, input.replacesFee);
  const changeDust = BTC_DUST_LIMITS.p2wsh;
  let plan: Pick<BtcPlan, 'change' | 'fee' | 'weight'>;
  if (total - outTotal - feeWithChange >= changeDust) {
    plan = { change: { vout: payouts.length, value: total - outTotal - feeWithChange, address: change.address }, fee: feeWithChange, weight: weightWithChange };
  } else if (total - outTotal >= feeWithout) {
    // Change below dust: it goes to the fee.
    plan = { change: null, fee: total - outTotal, weight: weightWithout };
  } else {
    throw new InsufficientCoinsError(outTotal + feeWithout, total);
  }
  const payoutWeights = scripts.map((l) => 4 * outputBytes(l));
  return {
    inputs: coins,
    payouts: [...payouts],
    ...plan,
    feeRate,
    vsize: vsizeOf(plan.weight),
    shares: feeShares(plan.fee, payoutWeights, plan.weight),
  };
}

/** What signs: the hot wallet's KMS key (shared/chain/signer/kms-btc-signer.ts). */
export interface BatchSigner {
  publicKey(): Promise<Uint8Array>;
  /** DER (low s) + sighash-type byte over a 32-byte digest. */
  signDigest(digest: Uint8Array): Promise<Uint8Array>;
}

export interface SignedBatch {
  readonly txid: string;
  readonly raw: string;
  /** Of the signed transaction (at most the plan's). */
  readonly weight: number;
  readonly vsize: number;
}

export class BatchSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BatchSignatureError';
  }
}

/** The unsigned transaction of a plan (inputs with their witness scripts and amounts, outputs in order). */
export function unsignedBatch(
  plan: Pick<BtcPlan, 'inputs' | 'payouts' | 'change'>,
  hotPublicKey: Uint8Array,
  network: BtcNetwork,
): { tx: Transaction; witnessScripts: Uint8Array[] } {
  const tx = new Transaction({ version: TX_VERSION, lockTime: 0, allowUnknownInputs: true });
  const witnessScripts: Uint8Array[] = [];
  for (const coin of plan.inputs) {
    const witnessScript = depositWitnessScript(hex.decode(coin.tag), hotPublicKey);
    witnessScripts.push(witnessScript);
    tx.addInput({
      txid: hex.decode(coin.txid),
      index: coin.vout,
      sequence: RBF_SEQUENCE,
      witnessUtxo: { script: p2wshOutputScript(witnessScript), amount: coin.value },
      witnessScript,
    });
  }
  for (const p of plan.payouts) tx.addOutput({ script: outputScriptOf(p.address, network), amount: p.value });
  if (plan.change) tx.addOutput({ script: outputScriptOf(plan.change.address, network), amount: plan.change.value });
  return { tx, witnessScripts };
}

/**
 * Signs a plan: one signer call per input over its BIP143 sighash, each signature verified against the hot key
 * before it goes into the witness; the raw transaction and its txid.
 */
export async function signBatch(plan: Pick<BtcPlan, 'inputs' | 'payouts' | 'change'>, signer: BatchSigner, network: BtcNetwork): Promise<SignedBatch> {
  const publicKey = await signer.publicKey();
  const { tx, witnessScripts } = unsignedBatch(plan, publicKey, network);
  for (let i = 0; i < plan.inputs.length; i++) {
    const coin = plan.inputs[i] as PlanCoin;
    const witnessScript = witnessScripts[i] as Uint8Array;
    const digest = tx.preimageWitnessV0(i, witnessScript, SigHash.ALL, coin.value);
    const signature = await signer.signDigest(digest);
    if (signature[signature.length - 1] !== SigHash.ALL) throw new BatchSignatureError(`input ${i}: the signature is not SIGHASH_ALL`);
    if (!secp256k1.verify(signature.subarray(0, -1), digest, publicKey, { prehash: false, format: 'der', lowS: true })) {
      throw new BatchSignatureError(`input ${i}: the signature does not verify against the hot wallet's key`);
    }
    tx.updateInput(i, { finalScriptWitness: [signature, witnessScript] }, true);
  }
  const raw = hex.encode(tx.extract());
  return { txid: tx.id, raw, weight: tx.weight, vsize: tx.vsize };
}

/** The change output of a signed batch's raw transaction, by its plan's index (for the coin recorded at confirmation). */
export function rawOutputs(raw: string): { script: string; value: bigint }[] {
  const tx = Transaction.fromRaw(hex.decode(raw), { allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true });
  const out: { script: string; value: bigint }[] = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const o = tx.getOutput(i);
    out.push({ script: hex.encode(o.script as Uint8Array), value: o.amount as bigint });
  }
  return out;
}
