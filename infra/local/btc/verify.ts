/**
 * Input script verification of the local Bitcoin node: the two spends the gateway and its tests make, checked as
 * bitcoind checks them under its standard flags (segwit v0, BIP143 sighash, strict DER, low S, NULLFAIL):
 *
 * - P2WPKH: witness `[signature, compressed public key]`, the key hashing to the program;
 * - the gateway's P2WSH deposits: witness `[signature, witness script]`, the script
 *   `<32-byte tag> OP_DROP <33-byte public key> OP_CHECKSIG` and hashing to the program.
 *
 * Anything else (P2PKH, P2SH, P2TR, other witness scripts...) is refused with an error naming its script type: the
 * node does not run a script interpreter, so it will not accept what it cannot check.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { Transaction } from '@scure/btc-signer';
import { hash160 } from '@scure/btc-signer/utils.js';
import type { BtcTx, TxOutput } from './block.js';
import { scriptType } from './script.js';

/** A refusal in bitcoind's words, with its RPC error code (-26: rejected by policy or consensus, -25: missing inputs). */
export class TxRefused extends Error {
  constructor(
    readonly reason: string,
    readonly code = -26,
  ) {
    super(reason);
    this.name = 'TxRefused';
  }
}

const HALF_N = secp256k1.Point.CURVE().n >> 1n;
/** The sighash types BIP143 defines: ALL, NONE, SINGLE, each optionally with ANYONECANPAY. */
const SIGHASH_TYPES = new Set([0x01, 0x02, 0x03, 0x81, 0x82, 0x83]);

const mandatory = (why: string) => new TxRefused(`mandatory-script-verify-flag-failed (${why})`);
const policy = (why: string) => new TxRefused(`non-mandatory-script-verify-flag (${why})`);

/** The spend's script kind as the refusal names it (`p2pkh`, `p2sh`, `p2wsh`, `p2tr`, ...). */
function kindName(script: Uint8Array): string {
  const type = scriptType(script);
  return type.replace(/^v\d_/, '');
}

/** `<0x20 tag> OP_DROP <0x21 key> OP_CHECKSIG` -> the key, or undefined for any other script. */
export function taggedKeyOf(witnessScript: Uint8Array): Uint8Array | undefined {
  const s = witnessScript;
  if (s.length !== 69 || s[0] !== 0x20 || s[33] !== 0x75 || s[34] !== 0x21 || s[68] !== 0xac) return undefined;
  return s.subarray(35, 68);
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** One ECDSA check of `sigWithType` over input `idx`'s BIP143 sighash with `scriptCode`. */
function checkSig(tx: Transaction, idx: number, scriptCode: Uint8Array, amount: bigint, sigWithType: Uint8Array, pubkey: Uint8Array): void {
  if (pubkey.length !== 33 || (pubkey[0] !== 0x02 && pubkey[0] !== 0x03)) throw policy('Using non-compressed keys in segwit');
  if (sigWithType.length === 0) throw mandatory('Signature must be zero for failed CHECK(MULTI)SIG operation');
  const hashType = sigWithType[sigWithType.length - 1] as number;
  const der = sigWithType.subarray(0, -1);
  let signature;
  try {
    signature = secp256k1.Signature.fromBytes(der, 'der');
  } catch {
    throw mandatory('Non-canonical DER signature');
  }
  if (!SIGHASH_TYPES.has(hashType)) throw policy('Signature hash type missing or not understood');
  if (signature.s > HALF_N) throw policy('Non-canonical signature: S value is unnecessarily high');
  const sighash = tx.preimageWitnessV0(idx, scriptCode, hashType, amount);
  let ok: boolean;
  try {
    ok = secp256k1.verify(der, sighash, pubkey, { prehash: false, format: 'der', lowS: true });
  } catch {
    ok = false;
  }
  if (!ok) throw mandatory('Signature must be zero for failed CHECK(MULTI)SIG operation');
}

/** The transaction as btc-signer's sighash computer sees it (parsed once per transaction). */
export function sighashView(tx: BtcTx): Transaction {
  return Transaction.fromRaw(tx.raw, { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });
}

/** Verifies input `idx` of `tx` spending `prevout`; throws TxRefused in bitcoind's words. */
export function verifyInput(tx: BtcTx, view: Transaction, idx: number, prevout: TxOutput): void {
  const input = tx.inputs[idx];
  if (!input) throw new TxRefused(`no input ${idx}`);
  const script = prevout.script;
  const type = scriptType(script);
  if (type === 'v0_p2wpkh') {
    if (input.scriptSig.length > 0) throw mandatory('Witness requires empty scriptSig');
    const [sig, pubkey, ...rest] = input.witness;
    if (!sig || !pubkey || rest.length > 0) throw mandatory('Witness program hash mismatch');
    if (!equal(hash160(pubkey), script.subarray(2))) throw mandatory('Witness program hash mismatch');
    const scriptCode = concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), script.subarray(2), Uint8Array.of(0x88, 0xac));
    checkSig(view, idx, scriptCode, prevout.value, sig, pubkey);
    return;
  }
  if (type === 'v0_p2wsh') {
    if (input.scriptSig.length > 0) throw mandatory('Witness requires empty scriptSig');
    const witnessScript = input.witness[input.witness.length - 1];
    if (!witnessScript) throw mandatory('Witness program was passed an empty witness');
    if (!equal(sha256(witnessScript), script.subarray(2))) throw mandatory('Witness program hash mismatch');
    const pubkey = taggedKeyOf(witnessScript);
    if (!pubkey) throw new TxRefused('unsupported input script type: p2wsh (only <32-byte tag> OP_DROP <pubkey> OP_CHECKSIG is verified)');
    if (input.witness.length !== 2) throw mandatory('Stack size must be exactly one after execution');
    checkSig(view, idx, witnessScript, prevout.value, input.witness[0] as Uint8Array, pubkey);
    return;
  }
  throw new TxRefused(`unsupported input script type: ${kindName(script)}`);
}
