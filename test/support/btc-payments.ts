import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { depositAddress } from '../../shared/chain/btc/p2wsh.js';
import type { BtcNetwork } from '../../shared/chain/btc/p2wsh.js';
import type { DepositAddressSource } from '../../shared/usecases/payments/ports.js';

/** A fixed compressed secp256k1 key standing for the hot wallet's KMS key in tests that make BTC deposit addresses. */
export const TEST_HOT_KEY: Uint8Array = secp256k1.getPublicKey(sha256(utf8ToBytes('gateway test hot wallet key')), true);

/**
 * Deposit addresses: a payment's P2WSH address (shared/chain/btc/p2wsh.ts) over `hotKey` on BTC, `base`'s elsewhere.
 * What the payments API needs to make a BTC payment in tests that run without KMS.
 */
export function withBtcAddresses(base: DepositAddressSource, network: BtcNetwork, hotKey: Uint8Array = TEST_HOT_KEY): DepositAddressSource {
  return {
    addressFor(chain, tenantId, id) {
      if (chain !== 'BTC') return base.addressFor(chain, tenantId, id);
      return { address: depositAddress(tenantId, id, hotKey, network).address, salt: '' };
    },
  };
}
