import { randomBytes, randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Contract, JsonRpcProvider } from 'ethers';
import { LOCAL_TRON, startStack } from '../infra/local/stack.js';
import { startTronNode } from '../infra/local/tron.js';
import type { TronNode } from '../infra/local/tron.js';
import { ERC20_ABI } from '../shared/chain/evm/abi.js';
import { mintTestToken } from '../infra/local/dev/deploy.js';
import { evmDepositSource } from '../shared/chain/evm/deposit-source.js';
import { jsonRpcChain } from '../shared/chain/evm/scanner.js';
import { tronAddressFromBytes } from '../shared/domain/chain-addresses.js';
import { TronGridClient } from '../shared/chain/tron/grid.js';
import { tronDepositSource } from '../shared/chain/tron/deposit-source.js';
import { config, parseConfig, platformLimits } from '../shared/config/config.js';
import type { Decimal } from '../shared/domain/money.js';
import { CURRENCIES } from '../shared/domain/currencies.js';
import { openPayment } from '../shared/domain/payments.js';
import { quote } from '../shared/domain/payment-quote.js';
import { db, tableName } from '../shared/store/client.js';
import { keys } from '../shared/store/keys.js';
import { dynamoPayments } from '../shared/store/payments.js';
import type { PaymentCreation } from '../shared/usecases/payments/ports.js';
import type { ScannerDeps } from '../shared/usecases/scanner/scan.js';
import { scannerRuntime } from '../shared/runtime/payments.js';
import { clientAuthFrom, issueToken } from '../shared/usecases/auth/issue-token.js';
import { initCursor, scanOnce } from '../shared/usecases/scanner/scan.js';
import { createTenant } from '../shared/usecases/tenants/create-tenant.js';
import { configureTenant } from '../shared/usecases/tenants/manage-tenants.js';
import { load, type LoadResult } from './load.js';
import { combine, mean, median, recordRequest, settleThenCompare, type RecordedRequest } from './round-trips.js';
import { tenantsRuntime } from '../shared/runtime/tenants.js';
import { authRuntime } from '../shared/runtime/auth.js';

/**
 * Payments:
 * 1. creations/s and p99 of `POST /payments/` through the local HTTP server (full pipeline: auth, rate
 *    buckets, rates, CREATE2 address, one TransactWriteItems) beside the raw TransactWriteItems of the same
 *    items (payment, address item, counter, outbox event) issued directly, 10 at a time, the two in turns (rates the
 *    mean of the runs, p99 their median); and the table operations of one creation, in their round trips;
 * 2. the scanner's calls and time for one block range with 10 and with 10,000 watched deposit addresses: the
 *    same calls (EVM: one eth_getLogs per range; TRON: per block, its events and, when it holds a catalogue
 *    transfer, the block), whatever the number of addresses. The TRON rows use the local TRON node.
 */
export interface PaymentsBench {
  readonly http: LoadResult;
  /** One creation's table operations as recorded, in their round trips. */
  readonly request: RecordedRequest;
  readonly rawTransactPerSecond: number;
  /** The median of the raw runs' p99 of one write, ms. */
  readonly rawTransactP99Ms: number;
  /** HTTP and raw ran in turns, this many runs of each. */
  readonly slices: number;
  /** Seconds of each run. */
  readonly sliceSeconds: number;
  readonly scanner: readonly ScannerFigure[];
}

export interface ScannerFigure {
  readonly network: 'ETH' | 'TRX';
  readonly watched: number;
  readonly rpcCalls: number;
  readonly blocks: number;
  /** Wall time of the scan pass, ms. */
  readonly ms: number;
}

/** The daily payment limit of a tenant left at the platform's limits. */
const defaultDailyLimit = (): Decimal | null => platformLimits(config()).daily_payment_limit;

/**
 * The creation write of a 25 USD USDTERC20 payment, issued directly (no HTTP, no auth, no rates): the items
 * `POST /payments/` writes for a tenant whose daily limit is `dailyLimitUsd` (the platform's default, as the
 * benches' tenants have it), the day's total included; the request's count, which `POST /payments/` adds to that
 * same item, is left out.
 */
export async function rawCreationWrite(
  tenantId: string,
  deps: Pick<ScannerDeps, 'addresses'>,
  dailyLimitUsd: Decimal | null = defaultDailyLimit(),
): Promise<PaymentCreation> {
  const currency = CURRENCIES.USDTERC20;
  const q = quote({ price: '25', priceCurrency: 'USD', currency, rates: { USDTERC20: '1' }, feePercent: '1', isFeePaidByUser: false });
  const id = randomUUID();
  const now = new Date();
  const { address, salt } = await deps.addresses.addressFor('ETH', tenantId, id);
  const change = openPayment(
    {
      id,
      tenantId,
      currency: currency.code,
      network: 'ETH',
      token: 'USDT',
      decimals: 6,
      priceAmount: '25',
      priceCurrency: 'USD',
      amountUsd: q.amountUsd,
      amountCrypto: q.amountCrypto,
      priceCrypto: q.priceCrypto,
      fee: q.fee,
      feePercent: '1',
      address,
      salt,
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
      expiryTime: new Date(now.getTime() + 3_600_000).toISOString(),
    },
    now,
  );
  return { change, family: 'evm', dailyLimitUsd };
}

/**
 * Raw creation writes, 10 at a time: per second, and the p99 of one write (ms). Only the writes that completed within
 * the run count towards the rate, as autocannon counts the HTTP side (the ten writes still in flight when the run
 * ends finish, and are timed for the p99, but are not counted: counting them overstated the rate by ten writes a run).
 */
async function rawCreates(tenantId: string, seconds: number, deps: Pick<ScannerDeps, 'addresses'>): Promise<{ perSecond: number; p99Ms: number }> {
  const deadline = Date.now() + seconds * 1000;
  const latencies: number[] = [];
  let completed = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      const creation = await rawCreationWrite(tenantId, deps);
      const t0 = performance.now();
      await dynamoPayments.create(creation, new Date());
      latencies.push(performance.now() - t0);
      if (Date.now() <= deadline) completed++;
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  latencies.sort((a, b) => a - b);
  return { perSecond: completed / seconds, p99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0 };
}

/** Writes `count` deposit-address items (watched addresses) of a family directly. */
async function watchAddresses(family: 'evm' | 'tron', count: number): Promise<void> {
  for (let i = 0; i < count; i += 25) {
    const items = Array.from({ length: Math.min(25, count - i) }, (_, j) => {
      const address = `0x${(BigInt(i + j + 1) * 7919n).toString(16).padStart(40, 'e')}`;
      const currency = family === 'evm' ? 'USDTERC20' : 'USDTTRC20';
      return {
        PutRequest: {
          Item: { ...keys.depositAddress(family, address), type: 'deposit_address', tenant_id: 'bench', payment_id: randomUUID(), currency, address },
        },
      };
    });
    await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: items } }));
  }
}

/**
 * Measured runs of each side: two long ones rather than six short, because the figure here is a p99 as well as a
 * rate. A run of 5 s holds about 750 creations, so its p99 is its 8th slowest and one stall of DynamoDB Local (which
 * holds up the 10 creations in flight) moves it; a run of 15 s holds about 2,300. Two turns still swap the order.
 */
const P99_TURNS = 2;

export async function benchPayments(options: { seconds: number; slices?: number; watched?: readonly number[]; blocks?: number }): Promise<PaymentsBench> {
  const stack = await startStack({
    dataDir: null,
    logLevel: 'silent',
    ports: { http: 0, dynamodb: 0, sqs: 0, kms: 0, anvil: 0 },
    parts: { anvil: true, contracts: true, pollers: false, tron: false },
    blockTimeSeconds: null,
  });
  const rpc = stack.stackJson.rpcUrls.ETH as string;
  const tokens = (stack.stackJson.contracts as { tokens: Record<string, string> }).tokens;
  const payments = scannerRuntime(
    parseConfig({
      ...process.env,
      TOKEN_CONTRACTS: JSON.stringify({ USDTERC20: tokens.USDT, USDCERC20: tokens.USDC, DAIERC20: tokens.DAI, WETH: tokens.WETH }),
    }),
  );
  const provider = new JsonRpcProvider(rpc, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 20 });
  let tron: TronNode | undefined;
  try {
    const made = await createTenant({ name: 'Bench payments' }, tenantsRuntime());
    await configureTenant({ tenant_id: made.tenant.id, requests_per_hour: 100_000_000, payment_creations_per_hour: 100_000_000 }, tenantsRuntime());
    const { access_token: token } = await issueToken(
      { grant_type: 'client_credentials' },
      clientAuthFrom(undefined, { client_id: made.clientId, client_secret: made.clientSecret }),
      new Date(),
      authRuntime(),
    );
    const request = {
      url: `${stack.apiUrl}/payments/`,
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{"amount":"25","currency":"USDTERC20"}',
    };
    await load({ ...request, seconds: 2 });
    // Recorded once warm (the first creation of a fresh stack also takes the first rates snapshot).
    const recorded = await recordRequest(() => fetch(request.url, { method: request.method, headers: request.headers, body: request.body }));
    if (recorded.status !== 201) throw new Error(`POST /payments/ answered ${recorded.status}`);
    const turns = await settleThenCompare(
      options.seconds,
      (run) => load({ ...request, seconds: run }),
      (run) => rawCreates(made.tenant.id, run, payments),
      options.slices ?? P99_TURNS,
    );
    const http = combine(turns.a);
    const raw = { perSecond: mean(turns.b.map((r) => r.perSecond)), p99Ms: median(turns.b.map((r) => r.p99Ms)) };

    const scanner: ScannerFigure[] = [];
    const owner = await provider.getSigner(0);
    const payer = await provider.getSigner(2);
    await mintTestToken(owner, tokens.USDT as string, payer.address, 1_000_000_000n);
    const blocks = options.blocks ?? 20;
    const sweep = { requestSweep: async () => ({ status: 'submitted' as const }) };
    // A TRON node of its own that mines only when told, so both rows scan the same blocks.
    tron = await startTronNode({ autoMine: false, tokens: [LOCAL_TRON.usdt] });
    const tronUrl = tron.url;
    const node = tron;
    for (const network of ['ETH', 'TRX'] as const) {
      let watchedSoFar = 0;
      for (const watched of options.watched ?? [10, 10_000]) {
        await watchAddresses(network === 'ETH' ? 'evm' : 'tron', watched - watchedSoFar);
        watchedSoFar = watched;
        const chain = network === 'ETH' ? evmDepositSource(jsonRpcChain(rpc)) : tronDepositSource(new TronGridClient(tronUrl));
        const deps = { ...payments, source: chain, sweep };
        await initCursor(network, await chain.head(), deps);
        for (let b = 0; b < blocks; b++) {
          if (network === 'ETH') {
            const tx = (await new Contract(tokens.USDT as string, ERC20_ABI, payer).getFunction('transfer')(`0x${'ab'.repeat(20)}`, 1n)) as {
              wait(): Promise<unknown>;
            };
            await tx.wait();
          } else {
            // A catalogue transfer to an unwatched address in every block.
            node.transfer(LOCAL_TRON.usdt, tronAddressFromBytes(Uint8Array.from([0x41, ...new Array<number>(20).fill(0xab)])), 1n);
            node.mine(1);
          }
        }
        const start = chain.calls;
        const t0 = performance.now();
        await scanOnce(network, deps);
        scanner.push({ network, watched, rpcCalls: chain.calls - start, blocks, ms: performance.now() - t0 });
        chain.close();
      }
    }
    return {
      http,
      request: recorded,
      rawTransactPerSecond: raw.perSecond,
      rawTransactP99Ms: raw.p99Ms,
      slices: turns.turns,
      sliceSeconds: turns.turnSeconds,
      scanner,
    };
  } finally {
    await tron?.close();
    provider.destroy();
    await stack.stop();
  }
}
