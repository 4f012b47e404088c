/**
 * The chain scanner's DepositSource (shared/usecases/deposits/ports.ts) on TRON, over the TronGrid-compatible API
 * (./scanner.ts: per block, one events call, and the block itself only when it holds a catalogue token's
 * transfer). Addresses in the TVM's 20-byte 0x-hex form, lowercase: what TRON deposit addresses are indexed by.
 */
import { chainAddressForm } from '../../domain/chain-addresses.js';
import { logDepositSource, logRecipientSource } from '../evm/deposit-source.js';
import type { DepositSource, RecipientTransferReader } from '../../usecases/deposits/ports.js';
import type { TronGridClient } from './grid.js';
import { tronScanChain } from './scanner.js';

export const tronDepositSource = (client: TronGridClient): DepositSource =>
  logDepositSource('tron', tronScanChain(client), (address) => chainAddressForm('tron', address));

/** TRON as custody's sync reads it: the DepositSource and one address's TRC-20 transfers (TronGrid's account API). */
export const tronRecipientSource = (client: TronGridClient): DepositSource & RecipientTransferReader =>
  logRecipientSource('tron', tronScanChain(client), (address) => chainAddressForm('tron', address));
