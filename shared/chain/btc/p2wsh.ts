import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import { BTC_NETWORK_PARAMS } from '../../domain/bitcoin.js';
import type { BtcNetwork } from '../../domain/bitcoin.js';

export type { BtcNetwork };

/**
 * Bitcoin deposit addresses (DESIGN section 12): each is a P2WSH output over the witness script
 *
 *   <32-byte tag> OP_DROP <hot public key> OP_CHECKSIG
 *
 * The tag is unique per payment (or custody or wallet address) and drops off the stack at once; what is left is
 * an ordinary single-key check against the hot wallet's KMS secp256k1 key. So every deposit address is spendable by
 * KMS alone: no private key outside KMS, no key per address, no xpub, no gap limit, and no sweep (a deposit is
 * already a coin of the hot wallet). An address is computed offline from the tenant, the reference and the hot
 * wallet's public key, as the EVM forwarders' CREATE2 addresses are (shared/chain/evm/create2.ts).
 */

/** Bech32 human-readable part of each network the deployment may run on (`bc1`, `tb1`, `bcrt1` addresses). */
export const BTC_HRP: Readonly<Record<BtcNetwork, string>> = {
  mainnet: BTC_NETWORK_PARAMS.mainnet.hrp,
  testnet: BTC_NETWORK_PARAMS.testnet.hrp,
  local: BTC_NETWORK_PARAMS.local.hrp,
};

const OP_0 = 0x00;
const OP_DROP = 0x75;
const OP_CHECKSIG = 0xac;
/** Push opcodes of exactly 32 and 33 bytes. */
const PUSH_32 = 0x20;
const PUSH_33 = 0x21;

/** Domain of the tag hash: a tag of this scheme never equals a hash of anything else. */
const TAG_DOMAIN = 'gateway/btc-deposit-tag/v1';

/**
 * The tag of one deposit address: SHA-256 over the domain, the tenant and the reference (a payment id, or a custody
 * or wallet address's own id), NUL-separated, so that distinct (tenant, reference) pairs never share a preimage.
 */
export function depositTag(tenantId: string, reference: string): Uint8Array {
  for (const [name, value] of [
    ['tenant id', tenantId],
    ['reference', reference],
  ] as const) {
    if (value.length === 0 || value.includes('\0')) throw new TypeError(`A BTC deposit tag needs a non-empty ${name} without NUL`);
  }
  return sha256(utf8ToBytes(`${TAG_DOMAIN}\0${tenantId}\0${reference}`));
}

/** `<tag> OP_DROP <key> OP_CHECKSIG`: a 32-byte tag and a compressed secp256k1 public key (33 bytes, 02/03). */
export function depositWitnessScript(tag: Uint8Array, hotPublicKey: Uint8Array): Uint8Array {
  if (tag.length !== 32) throw new TypeError(`A deposit tag is 32 bytes, not ${tag.length}`);
  if (hotPublicKey.length !== 33 || (hotPublicKey[0] !== 0x02 && hotPublicKey[0] !== 0x03)) {
    throw new TypeError('The hot wallet key must be a compressed secp256k1 public key (33 bytes, 02 or 03 first)');
  }
  return concatBytes(Uint8Array.of(PUSH_32), tag, Uint8Array.of(OP_DROP, PUSH_33), hotPublicKey, Uint8Array.of(OP_CHECKSIG));
}

/** The output script paying a witness script: `OP_0 <SHA-256 of the script>` (BIP141 P2WSH). */
export function p2wshOutputScript(witnessScript: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(OP_0, PUSH_32), sha256(witnessScript));
}

/** The bech32 address (witness version 0, BIP173) of a witness script on `network`. */
export function p2wshAddress(witnessScript: Uint8Array, network: BtcNetwork): string {
  return bech32.encode(BTC_HRP[network], [0, ...bech32.toWords(sha256(witnessScript))]);
}

export interface BtcDepositAddress {
  readonly address: string;
  /** What a spend reveals in its witness (and the signer's BIP143 script code). */
  readonly witnessScript: Uint8Array;
  readonly outputScript: Uint8Array;
}

/** The deposit address of (tenant, reference) for the hot wallet's key on `network`. */
export function depositAddress(tenantId: string, reference: string, hotPublicKey: Uint8Array, network: BtcNetwork): BtcDepositAddress {
  const witnessScript = depositWitnessScript(depositTag(tenantId, reference), hotPublicKey);
  return { address: p2wshAddress(witnessScript, network), witnessScript, outputScript: p2wshOutputScript(witnessScript) };
}
