/**
 * TRON CREATE2 addresses (pure; @noble/@scure only).
 *
 * TVM derives CREATE2 addresses from the 21-byte TRON form of the deployer (java-tron
 * `WalletUtil.generateContractAddress2`, `Hash.sha3omit12`):
 *
 *   address = 0x41 ‖ keccak256(0x41 ‖ deployer20 ‖ salt ‖ keccak256(init_code))[12:]      (Base58Check)
 *
 * i.e. EIP-1014 with the 0xff prefix byte replaced by TRON's 0x41 address prefix. Same deployer, salt and code give
 * different addresses on TRON and on Ethereum. Since java-tron's "Istanbul" TVM upgrade the deployer is the
 * contract executing CREATE2 (the factory), as on Ethereum.
 *
 * Deposit addresses use the same EIP-1167 clone init code as on EVM chains: the implementation appears in it as
 * its 20-byte body (TVM addresses are 20 bytes inside the VM).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import { cloneInitCodeHash } from '../evm/create2.js';

export const TRON_ADDRESS_PREFIX = 0x41;

const base58check = createBase58check(sha256);

/**
 * The 21-byte form of a TRON address given as Base58Check (`T...`), hex with the 41 prefix (`41...`, `0x41...`,
 * 42 hex digits), or a 20-byte EVM-style hex (`0x` + 40 hex digits, as TVM logs and ABI values show it).
 */
export function tronAddressToBytes(address: string): Uint8Array {
  let bytes: Uint8Array;
  if (/^(0x)?41[0-9a-fA-F]{40}$/.test(address)) {
    bytes = hexToBytes(address.replace(/^0x/, ''));
  } else if (/^0x[0-9a-fA-F]{40}$/.test(address)) {
    bytes = concatBytes(Uint8Array.of(TRON_ADDRESS_PREFIX), hexToBytes(address.slice(2)));
  } else {
    try {
      bytes = base58check.decode(address);
    } catch (error) {
      throw new TypeError(`Not a TRON address: ${address}`, { cause: error });
    }
  }
  if (bytes.length !== 21 || bytes[0] !== TRON_ADDRESS_PREFIX) throw new TypeError(`Not a TRON address: ${address}`);
  return bytes;
}

/** Base58Check (`T...`) of a 21-byte TRON address. */
export function tronAddressFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== 21 || bytes[0] !== TRON_ADDRESS_PREFIX) throw new TypeError('A TRON address is 0x41 + 20 bytes');
  return base58check.encode(bytes);
}

/** Base58Check form of any accepted TRON address spelling. */
export function toTronBase58(address: string): string {
  return tronAddressFromBytes(tronAddressToBytes(address));
}

/** The 20-byte body as 0x-hex (the form used inside the TVM: ABI arguments, init code, logs). */
export function tronAddressToEvmHex(address: string): string {
  return `0x${bytesToHex(tronAddressToBytes(address).subarray(1))}`;
}

function bytes32(value: string | Uint8Array, what: string): Uint8Array {
  const bytes = value instanceof Uint8Array ? value : hexToBytes(value.replace(/^0x/, ''));
  if (bytes.length !== 32) throw new TypeError(`${what} must be 32 bytes`);
  return bytes;
}

/** TRON CREATE2: Base58Check(0x41 ‖ keccak256(0x41 ‖ deployer20 ‖ salt ‖ initCodeHash)[12:]). */
export function tronCreate2Address(deployer: string, salt: string | Uint8Array, initCodeHash: string | Uint8Array): string {
  const preimage = concatBytes(tronAddressToBytes(deployer), bytes32(salt, 'salt'), bytes32(initCodeHash, 'init code hash'));
  const digest = keccak_256(preimage);
  return tronAddressFromBytes(concatBytes(Uint8Array.of(TRON_ADDRESS_PREFIX), digest.subarray(12)));
}

/** A payment's TRON deposit address: TRON-CREATE2(factory, salt, EIP-1167 clone init code of `implementation`). */
export function tronDepositAddress(factory: string, implementation: string, salt: string): string {
  return tronCreate2Address(factory, salt, cloneInitCodeHash(tronAddressToEvmHex(implementation)));
}
