import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { BatchSigner } from '../../../shared/chain/btc/transaction.js';
import type { HotCoin, HotCoinStore, StoredCoin } from '../../../shared/usecases/coins/ports.js';
import type { BroadcastOutcome, BtcChainPort } from '../../../shared/usecases/chain-tx/ports.js';
import type { TxPlace } from '../../../shared/usecases/deposits/ports.js';

/**
 * Bitcoin fakes: the hot wallet's coins in memory (the rules of shared/store/btc-coins.ts: `reserve` all or nothing),
 * a chain whose tip, fee rate and transactions' places the test sets (every broadcast recorded, in order), and a
 * signer over a local key (DER, low s, SIGHASH_ALL) that counts its calls as the KMS one does.
 */

const keyOf = (c: Pick<HotCoin, 'network' | 'txid' | 'vout'>): string => `${c.network}:${c.txid}:${c.vout}`;

export class InMemoryHotCoins implements HotCoinStore {
  readonly coins = new Map<string, StoredCoin>();

  async add(coins: readonly HotCoin[]): Promise<void> {
    for (const c of coins) if (!this.coins.has(keyOf(c))) this.coins.set(keyOf(c), { ...c, state: 'available' });
  }

  async available(network: string, limit: number): Promise<StoredCoin[]> {
    return [...this.coins.values()]
      .filter((c) => c.network === network && c.state === 'available')
      .sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1))
      .slice(0, limit);
  }

  async reserve(coins: readonly Pick<HotCoin, 'network' | 'txid' | 'vout'>[], batch: string): Promise<boolean> {
    if (coins.some((c) => this.coins.get(keyOf(c))?.state !== 'available')) return false;
    for (const c of coins) {
      const stored = this.coins.get(keyOf(c)) as StoredCoin;
      this.coins.set(keyOf(c), { ...stored, state: 'reserved', spentBy: batch });
    }
    return true;
  }

  async ofBatch(network: string, batch: string): Promise<StoredCoin[]> {
    return [...this.coins.values()].filter((c) => c.network === network && c.spentBy === batch);
  }

  async markSpent(coins: readonly Pick<HotCoin, 'network' | 'txid' | 'vout'>[], batch: string): Promise<void> {
    for (const c of coins) {
      const stored = this.coins.get(keyOf(c));
      if (stored && stored.spentBy === batch) this.coins.set(keyOf(c), { ...stored, state: 'spent' });
    }
  }

  async release(coins: readonly Pick<HotCoin, 'network' | 'txid' | 'vout'>[], batch: string): Promise<void> {
    for (const c of coins) {
      const stored = this.coins.get(keyOf(c));
      if (stored && stored.spentBy === batch && stored.state === 'reserved') {
        const { spentBy: _spentBy, ...rest } = stored;
        this.coins.set(keyOf(c), { ...rest, state: 'available' });
      }
    }
  }
}

export class FakeBtcChain implements BtcChainPort {
  tip = 100;
  rate = 5n;
  readonly places = new Map<string, TxPlace>();
  readonly broadcasts: string[] = [];

  async tipHeight(): Promise<number> {
    return this.tip;
  }

  async feeRate(): Promise<bigint> {
    return this.rate;
  }

  async status(txid: string): Promise<TxPlace> {
    return this.places.get(txid) ?? { state: 'gone' };
  }

  async broadcast(raw: string): Promise<BroadcastOutcome> {
    this.broadcasts.push(raw);
    return { kind: 'accepted' };
  }
}

/** A local secp256k1 key signing as the KMS signer does (DER, low s, then SIGHASH_ALL); `calls` counts signatures. */
export class LocalBtcSigner implements BatchSigner {
  readonly secret: Uint8Array;
  calls = 0;

  constructor(secret: Uint8Array = secp256k1.utils.randomSecretKey()) {
    this.secret = secret;
  }

  async publicKey(): Promise<Uint8Array> {
    return secp256k1.getPublicKey(this.secret, true);
  }

  async signDigest(digest: Uint8Array): Promise<Uint8Array> {
    this.calls++;
    return Uint8Array.of(...secp256k1.sign(digest, this.secret, { prehash: false, format: 'der', lowS: true }), 0x01);
  }
}
