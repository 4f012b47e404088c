/**
 * Bitcoin's scanner calls (issue 26): the calls one scanner pass makes to the Esplora API for one new block, with 10
 * and with 10,000 open BTC payments, side by side, and the mempool lookups of that pass. Store-only: DynamoDB Local
 * (infra/local/table-only.ts, the caller's) and the local Bitcoin node (infra/local/bitcoin.ts), mining when told;
 * the payments are written as `POST /payments/` writes them (waiting, each with its deposit-address item), their
 * addresses P2WSH over a key of the bench's own (no KMS: scanning needs no key). One payment is paid in the block.
 *
 * What the figure says: the block's cost (its hash and raw bytes, the head, the reorg check, the range's end) does
 * not grow with the payments; the mempool lookups do, up to the budget per pass (`DEFAULT_MEMPOOL_BUDGET`), where
 * they stop growing.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { startBitcoinNode } from '../infra/local/bitcoin.js';
import { btcDepositSource } from '../shared/chain/btc/deposit-source.js';
import { EsploraClient } from '../shared/chain/btc/esplora.js';
import { depositAddress, depositTag } from '../shared/chain/btc/p2wsh.js';
import { parseConfig } from '../shared/config/config.js';
import { CURRENCIES } from '../shared/domain/currencies.js';
import { openPayment, transition } from '../shared/domain/payments.js';
import { quote } from '../shared/domain/payment-quote.js';
import { dynamoPayments } from '../shared/store/payments.js';
import { dynamoRatesStore } from '../shared/store/rates.js';
import { scannerRuntime } from '../shared/runtime/payments.js';
import { settledPool } from '../shared/usecases/chain-tx/items.js';
import { dynamoHotCoins } from '../shared/store/btc-coins.js';
import { coinSweep } from '../shared/usecases/payments/sweep-coins.js';
import { DEFAULT_MEMPOOL_BUDGET, MempoolRotation } from '../shared/usecases/scanner/mempool-rotation.js';
import { initCursor, scanOnce } from '../shared/usecases/scanner/scan.js';

export interface BtcScannerRow {
  readonly payments: number;
  /** Every call of the pass to the Esplora API. */
  readonly calls: number;
  /** The calls of the pass but its mempool lookups: what reading the block costs. */
  readonly blockCalls: number;
  readonly mempoolLookups: number;
  /** Deposits the pass recorded (the one payment paid in the block). */
  readonly recorded: number;
}

export interface BtcScannerBench {
  readonly rows: readonly BtcScannerRow[];
  readonly budget: number;
}

const hotKey = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);

/** `count` waiting BTC payments of 60 USD (0.001 BTC), written as the creation writes them: their ids and addresses. */
async function openPayments(tenantId: string, count: number): Promise<{ id: string; address: string }[]> {
  const currency = CURRENCIES.BTC;
  const q = quote({ price: '60', priceCurrency: 'USD', currency, rates: { BTC: '60000' }, feePercent: '1', isFeePaidByUser: false });
  const made: { id: string; address: string }[] = [];
  const settled = await settledPool(
    Array.from({ length: count }, () => randomUUID()),
    16,
    async (id) => {
      const now = new Date();
      const address = depositAddress(tenantId, id, hotKey, 'local').address;
      made.push({ id, address });
      const change = openPayment(
        {
          id,
          tenantId,
          currency: 'BTC',
          network: 'BTC',
          token: 'BTC',
          decimals: 8,
          priceAmount: '60',
          priceCurrency: 'USD',
          amountUsd: q.amountUsd,
          amountCrypto: q.amountCrypto,
          priceCrypto: q.priceCrypto,
          fee: q.fee,
          feePercent: '1',
          address,
          salt: bytesToHex(depositTag(tenantId, id)),
          isFixedRate: true,
          isFeePaidByUser: false,
          orderId: null,
          orderDescription: null,
          callbackUrl: null,
          customId: null,
          walletId: null,
          customerEmail: null,
          checkoutId: randomBytes(16).toString('base64url'),
          successUrl: null,
          cancelUrl: null,
          expiryTime: new Date(now.getTime() + 6 * 3_600_000).toISOString(),
        },
        now,
      );
      await dynamoPayments.create({ change, family: 'btc', dailyLimitUsd: null }, now);
    },
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return made;
}

/** A row's payments out of the next row's way: the paid one completed (two more blocks), the others expired. */
async function closeRow(tenantId: string, made: readonly { id: string }[], pass: () => Promise<unknown>, mine: () => void): Promise<void> {
  mine();
  mine();
  await pass();
  await settledPool(made, 16, async ({ id }) => {
    const p = await dynamoPayments.get(tenantId, id);
    if (p?.status === 'waiting') await dynamoPayments.save(p, transition(p, { kind: 'expire' }, new Date()), new Date());
  });
}

/** One pass over one new block paying one of the payments, with 10 and with 10,000 of them open (`sizes`). */
export async function benchBtcScanner(options: { sizes?: readonly number[] } = {}): Promise<BtcScannerBench> {
  const node = await startBitcoinNode({ autoMine: false });
  try {
    const cfg = parseConfig({ ...process.env, STAGE: 'local', BTC_API_URL: node.url, BTC_NETWORK: 'local', HOT_WALLET_KEY_ID: 'bench' });
    // The rate a completed payment's USD figure is taken at.
    const now = new Date();
    const usd = { usd: '60000', high24h: '60000', low24h: '60000', change24h: '0', change24hPercent: '0', volume24h: null, marketCap: null };
    await dynamoRatesStore.putCurrent({
      at: now.toISOString(),
      nextUpdate: new Date(now.getTime() + 600_000).toISOString(),
      source: 'bench',
      rates: { BTC: usd },
      fiat: {},
    });
    const rows: BtcScannerRow[] = [];
    const sizes = options.sizes ?? [10, 10_000];
    for (const [i, size] of sizes.entries()) {
      const tenantId = `bench-btc-${randomUUID()}`;
      const made = await openPayments(tenantId, size);
      const client = new EsploraClient(node.url);
      const source = btcDepositSource(client, 'local');
      const deps = {
        ...scannerRuntime(cfg),
        source,
        sweep: coinSweep({ payments: dynamoPayments, coins: dynamoHotCoins }),
        mempoolRotation: new MempoolRotation(DEFAULT_MEMPOOL_BUDGET),
      };
      await initCursor('BTC', await client.tipHeight(), deps);
      node.fund((made[0] as { address: string }).address, 100_000n);
      node.mine(1);
      const before = client.calls;
      const report = await scanOnce('BTC', deps);
      const calls = client.calls - before;
      rows.push({ payments: size, calls, blockCalls: calls - report.mempoolLookups, mempoolLookups: report.mempoolLookups, recorded: report.recorded });
      if (i < sizes.length - 1) {
        await closeRow(
          tenantId,
          made,
          () => scanOnce('BTC', deps),
          () => void node.mine(1),
        );
      }
    }
    return { rows, budget: DEFAULT_MEMPOOL_BUDGET };
  } finally {
    await node.close();
  }
}
