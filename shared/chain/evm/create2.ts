/**
 * Deposit addresses on EVM chains, computed offline (pure: no I/O, no ethers — small enough for API Lambdas).
 *
 *   deposit address = CREATE2(factory, saltFor(tenantId, paymentId), EIP-1167 clone init code of the implementation)
 *                   = keccak256(0xff ‖ factory ‖ salt ‖ keccak256(cloneInitCode(implementation)))[12:]
 *
 * The salt leaves the network out, and the factory has the same address on every EVM network (see deploy.ts),
 * so a payment has the same deposit address on every EVM chain.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/** Domain tag of the salt encoding. Changing it changes every deposit address. */
export const SALT_DOMAIN = 'cpg.deposit.v1';

/** EIP-1167 creation code around the implementation address: 10-byte constructor + 45-byte runtime. */
const CLONE_PREFIX = hexToBytes('3d602d80600a3d3981f3363d3d373d3d3d363d73');
const CLONE_SUFFIX = hexToBytes('5af43d82803e903d91602b57fd5bf3');

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const BYTES32_RE = /^0x[0-9a-fA-F]{64}$/;

function strip0x(hex: string): string {
  return hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
}

/** EIP-55 mixed-case checksum of a 20-byte address. */
export function checksumAddress(address: string): string {
  if (!ADDRESS_RE.test(address)) throw new TypeError(`Not an EVM address: ${address}`);
  const lower = address.slice(2).toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower[i] as string;
    out += parseInt(hash[i] as string, 16) >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/** Parses a 0x-prefixed 20-byte address; a mixed-case address must carry a valid EIP-55 checksum. */
export function addressBytes(address: string): Uint8Array {
  if (!ADDRESS_RE.test(address)) throw new TypeError(`Not an EVM address: ${address}`);
  const body = address.slice(2);
  const mixed = body !== body.toLowerCase() && body !== body.toUpperCase();
  if (mixed && checksumAddress(address) !== address) throw new TypeError(`Bad EIP-55 checksum: ${address}`);
  return hexToBytes(body);
}

function bytes32(value: string | Uint8Array, what: string): Uint8Array {
  if (value instanceof Uint8Array) {
    if (value.length !== 32) throw new TypeError(`${what} must be 32 bytes, got ${value.length}`);
    return value;
  }
  if (!BYTES32_RE.test(value)) throw new TypeError(`${what} must be 0x + 64 hex digits: ${value}`);
  return hexToBytes(value.slice(2));
}

function toAddress(last20: Uint8Array): string {
  return checksumAddress(`0x${bytesToHex(last20)}`);
}

/** The 55-byte EIP-1167 creation code of a clone of `implementation`, as 0x-hex. */
export function cloneInitCode(implementation: string): string {
  return `0x${bytesToHex(concatBytes(CLONE_PREFIX, addressBytes(implementation), CLONE_SUFFIX))}`;
}

/** keccak256 of `cloneInitCode(implementation)`, as 0x-hex (what the factory's `cloneInitCodeHash()` returns). */
export function cloneInitCodeHash(implementation: string): string {
  return `0x${bytesToHex(keccak_256(hexToBytes(cloneInitCode(implementation).slice(2))))}`;
}

/** EIP-1014: keccak256(0xff ‖ deployer ‖ salt ‖ initCodeHash)[12:], checksummed. */
export function create2Address(deployer: string, salt: string | Uint8Array, initCodeHash: string | Uint8Array): string {
  const preimage = concatBytes(Uint8Array.of(0xff), addressBytes(deployer), bytes32(salt, 'salt'), bytes32(initCodeHash, 'init code hash'));
  return toAddress(keccak_256(preimage).subarray(12));
}

/** keccak256 of init code given as hex or bytes. */
export function initCodeHash(initCode: string | Uint8Array): string {
  const bytes = initCode instanceof Uint8Array ? initCode : hexToBytes(strip0x(initCode));
  return `0x${bytesToHex(keccak_256(bytes))}`;
}

/** CREATE address: keccak256(rlp([deployer, nonce]))[12:]. */
export function createAddress(deployer: string, nonce: number | bigint): string {
  const n = BigInt(nonce);
  if (n < 0n || n >= 2n ** 64n) throw new RangeError(`nonce out of range: ${n}`);
  let nonceRlp: Uint8Array;
  if (n === 0n) nonceRlp = Uint8Array.of(0x80);
  else if (n < 0x80n) nonceRlp = Uint8Array.of(Number(n));
  else {
    let hex = n.toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    const raw = hexToBytes(hex);
    nonceRlp = concatBytes(Uint8Array.of(0x80 + raw.length), raw);
  }
  const payload = concatBytes(Uint8Array.of(0x80 + 20), addressBytes(deployer), nonceRlp);
  return toAddress(keccak_256(concatBytes(Uint8Array.of(0xc0 + payload.length), payload)).subarray(12));
}

/**
 * The forwarder implementation of a factory: the factory's constructor creates it as its first contract,
 * so it sits at CREATE(factory, 1) (EIP-161: a contract's nonce starts at 1).
 */
export function forwarderImplementationAddress(factory: string): string {
  return createAddress(factory, 1);
}

/** ABI head/tail encoding of one `string` (length word + data right-padded to 32 bytes). */
function abiStringTail(value: string): Uint8Array {
  const data = utf8ToBytes(value);
  const padded = new Uint8Array(32 + Math.ceil(data.length / 32) * 32);
  padded.set(uint256(BigInt(data.length)), 0);
  padded.set(data, 32);
  return padded;
}

function uint256(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/**
 * The CREATE2 salt of a payment's deposit address:
 *
 *   saltFor(tenantId, paymentId) = keccak256(abi.encode(string "cpg.deposit.v1", string tenantId, string paymentId))
 *
 * i.e. Solidity's `keccak256(abi.encode(SALT_DOMAIN, tenantId, paymentId))`; reproducible with
 * `cast keccak $(cast abi-encode "f(string,string,string)" cpg.deposit.v1 <tenant> <payment>)`.
 * The ids are used byte for byte (UTF-8, case-sensitive, no trimming). The ABI encoding is length-prefixed, so
 * distinct (tenant, payment) pairs never share a salt. The network is deliberately not part of it.
 */
export function saltFor(tenantId: string, paymentId: string): string {
  if (tenantId.length === 0 || paymentId.length === 0) throw new TypeError('tenantId and paymentId must be non-empty');
  const tails = [SALT_DOMAIN, tenantId, paymentId].map(abiStringTail);
  const heads: Uint8Array[] = [];
  let offset = 32n * BigInt(tails.length);
  for (const tail of tails) {
    heads.push(uint256(offset));
    offset += BigInt(tail.length);
  }
  return `0x${bytesToHex(keccak_256(concatBytes(...heads, ...tails)))}`;
}

/** The deposit address for `salt`: CREATE2(factory, salt, cloneInitCode(implementation)). */
export function depositAddress(factory: string, implementation: string, salt: string): string {
  return create2Address(factory, salt, cloneInitCodeHash(implementation));
}
