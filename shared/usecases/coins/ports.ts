/**
 * The hot wallet's coins on a UTXO network (Bitcoin): every output the hot wallet's key can spend, known to the
 * gateway by where it came from. A payment's deposit becomes a coin when the payment is credited (there is no sweep:
 * its P2WSH address already pays to the hot key, shared/chain/btc/p2wsh.ts); a batch's change becomes one when the
 * batch confirms; a top-up to the hot wallet's own address becomes one when the scanner sees it confirmed.
 *
 * A coin is spent by exactly one batch: `reserve` takes coins for a batch inside a condition that they are still
 * available, so two batchers can never spend one coin. Adapter: shared/store/btc-coins.ts.
 */

/** A coin the hot wallet can spend: the output, its value and the 32-byte tag of its witness script (hex). */
export interface HotCoin {
  readonly network: string;
  readonly txid: string;
  readonly vout: number;
  /** Satoshis. */
  readonly value: bigint;
  /** The witness script's tag (64 hex digits): `<tag> OP_DROP <hot key> OP_CHECKSIG`. */
  readonly tag: string;
  /** Where it came from: `payment:<tenant>:<payment>`, `change:<batch reference>`, `topup`, `custody:<tenant>:<account>`. */
  readonly source: string;
}

export type CoinState = 'available' | 'reserved' | 'spent';

export interface StoredCoin extends HotCoin {
  readonly state: CoinState;
  /** The batch reference that reserved or spent it. */
  readonly spentBy?: string;
}

export interface HotCoinStore {
  /** Records coins as available; a coin already recorded is left as it is (idempotent). */
  add(coins: readonly HotCoin[]): Promise<void>;
  /** Available coins of a network, largest first, at most `limit`. */
  available(network: string, limit: number): Promise<StoredCoin[]>;
  /** Reserves these coins for `batch` in ONE transaction; false (nothing reserved) when one is no longer available. */
  reserve(coins: readonly Pick<HotCoin, 'network' | 'txid' | 'vout'>[], batch: string): Promise<boolean>;
  /** Coins reserved or spent by `batch`. */
  ofBatch(network: string, batch: string): Promise<StoredCoin[]>;
  /** The batch's transaction confirmed: its coins are spent. */
  markSpent(coins: readonly Pick<HotCoin, 'network' | 'txid' | 'vout'>[], batch: string): Promise<void>;
  /** The batch will never be mined: its coins are available again. */
  release(coins: readonly Pick<HotCoin, 'network' | 'txid' | 'vout'>[], batch: string): Promise<void>;
}
