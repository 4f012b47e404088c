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
import { keccak_256 } from '@noble/hashes/sha3.js';
import { concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { TRON_ADDRESS_PREFIX, tronAddressFromBytes, tronAddressToBytes, tronAddressToEvmHex } from '../../domain/chain-addresses.js';
import { cloneInitCodeHash } from '../evm/create2.js';

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
