import { tronAddressToEvmHex } from './tron/create2.js';

/**
 * An address as chain logs and the TVM show it, the form deposits are matched in: EVM hex, lowercase; a TRON
 * base58 address as its 20-byte 0x-hex body.
 */
export const chainAddressForm = (family: string, address: string): string =>
  (family === 'tron' && !address.startsWith('0x') ? tronAddressToEvmHex(address) : address).toLowerCase();
