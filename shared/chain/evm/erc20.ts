/**
 * ERC-20 call data as the withdrawal use cases ask for it (through their `PayoutCalls` port), so that no use case
 * encodes ABI itself. The TVM takes the same call data (TRC-20), addresses in their 0x-20-byte form.
 */

/** `transfer(address,uint256)` call data. */
export function erc20TransferData(to: string, units: bigint): string {
  return `0xa9059cbb${to.slice(2).toLowerCase().padStart(64, '0')}${units.toString(16).padStart(64, '0')}`;
}
