import { randomBytes, randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Contract, JsonRpcProvider } from 'ethers';
import { LOCAL_TRON, startStack } from '../infra/local/stack.js';
import { startTronNode } from '../infra/local/tron.js';
import type { TronNode } from '../infra/local/tron.js';
import { ERC20_ABI } from '../shared/chain/evm/abi.js';
import { mintTestToken } from '../infra/local/dev/deploy.js';
import { jsonRpcChain } from '../shared/chain/evm/scanner.js';
import { tronAddressFromBytes } from '../shared/chain/tron/create2.js';
import { TronGridClient } from '../shared/chain/tron/grid.js';
import { tronScanChain } from '../shared/chain/tron/scanner.js';
import { parseConfig } from '../shared/config/config.js';
import { CURRENCIES } from '../shared/domain/currencies.js';
import { openPayment, quote } from '../shared/domain/payments.js';
import { db, tableName } from '../shared/store/client.js';
import { keys } from '../shared/store/keys.js';
import { dynamoPayments } from '../shared/store/payments.js';
import type { PaymentCreation, ScannerDeps } from '../shared/usecases/payments/ports.js';
import { scannerRuntime } from '../shared/runtime/payments.js';
import { clientAuthFrom, issueToken } from '../shared/usecases/auth/issue-token.js';
import { initCursor, scanOnce } from '../shared/usecases/payments/scan.js';
import { createTenant } from '../shared/usecases/tenants/create-tenant.js';
import { configureTenant } from '../shared/usecases/tenants/manage-tenants.js';
import { load, type LoadResult } from './load.js';
import { tenantsRuntime } from '../shared/runtime/tenants.js';
import { authRuntime } from '../shared/runtime/auth.js';

/**
 * Payments:
 * 1. creations/s and p99 of `POST /payments/` through the local HTTP server (full pipeline: auth, rate
 *    buckets, rates, CREATE2 address, one TransactWriteItems) beside the raw TransactWriteItems of the same
 *    items (payment, address item, counter, outbox event) issued directly, 10 at a time;
 * 2. the scanner's calls and time for one block range with 10 and with 10,000 watched deposit addresses: the
 *    same calls (EVM: one eth_getLogs per range; TRON: per block, its events and, when it holds a catalogue
 *    transfer, the block), whatever the number of addresses. The TRON rows use the local TRON node.
 */
export interface PaymentsBench {
  readonly http: LoadResult;
  readonly rawTransactPerSecond: number;
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

/** The creation write of a 25 USD USDTERC20 payment, issued directly (no HTTP, no auth, no rates). */
export function rawCreationWrite(tenantId: string, deps: Pick<ScannerDeps, 'addresses'>): PaymentCreation {
  const currency = CURRENCIES.USDTERC20;
  const q = quote({ price: '25', priceCurrency: 'USD', currency, rates: { USDTERC20: '1' }, feePercent: '1', isFeePaidByUser: false });
  const id = randomUUID();
  const now = new Date();
  const { address, salt } = deps.addresses.addressFor('ETH', tenantId, id);
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
  return { change, family: 'evm', dailyLimitUsd: null };
}

async function rawCreates(tenantId: string, seconds: number, deps: Pick<ScannerDeps, 'addresses'>): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      await dynamoPayments.create(rawCreationWrite(tenantId, deps), new Date());
      done++;
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  return done / seconds;
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

export async function benchPayments(options: { seconds: number; watched?: readonly number[]; blocks?: number }): Promise<PaymentsBench> {
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
    const http = await load({ ...request, seconds: options.seconds });
    const rawTransactPerSecond = await rawCreates(made.tenant.id, options.seconds, payments);

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
        const chain = network === 'ETH' ? jsonRpcChain(rpc) : tronScanChain(new TronGridClient(tronUrl));
        const deps = { ...payments, chain, sweep };
        await initCursor(network, await chain.blockNumber(), deps);
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
    return { http, rawTransactPerSecond, scanner };
  } finally {
    await tron?.close();
    provider.destroy();
    await stack.stop();
  }
}
