/**
 * Two figures of the payments flow on one local stack (DynamoDB Local, SQS, KMS endpoint, anvil, HTTP server,
 * and of the pollers only the outbox path: event-router on the table stream, webhook-delivery on its queue):
 *
 * 1. DynamoDB read and write units of one whole payment lifecycle, from `ReturnConsumedCapacity: 'TOTAL'`
 *    on every table operation of the gateway's client (shared/store/client.ts `meterCapacity`): `POST /payments/`
 *    through the HTTP server, the deposit on anvil, scanner passes (confirming -> confirmed -> sending ->
 *    completed with the merchant credited), and the outbox consumers' work. The webhook-delivery worker is held
 *    behind a gate while a phase runs and let through afterwards, so its units are counted apart. Baseline: the
 *    units of the raw TransactWriteItems of the creation items alone (as bench/payments.ts issues them).
 * 2. The delay from a deposit's block to the moment its payment reads `confirming`, with the scanner looping as
 *    the chain-scanner worker does (`runScanners`, pause about a block time), N deposits sent at random moments.
 *
 *   npx tsx bench/payment-lifecycle.ts
 */
import { pathToFileURL } from 'node:url';
import { KMSClient } from '@aws-sdk/client-kms';
import { Contract, JsonRpcProvider } from 'ethers';
import type { PollerWorker } from '../infra/local/pollers.js';
import { startStack } from '../infra/local/stack.js';
import { ERC20_ABI } from '../shared/chain/evm/abi.js';
import { mintTestToken } from '../infra/local/dev/deploy.js';
import { jsonRpcChain } from '../shared/chain/evm/scanner.js';
import { evmDepositSource } from '../shared/chain/evm/deposit-source.js';
import { KmsSigner } from '../shared/chain/signer/kms-signer.js';
import { config, resetConfig } from '../shared/config/config.js';
import { CURRENCIES, NETWORKS } from '../shared/domain/currencies.js';
import { toBaseUnits } from '../shared/domain/money.js';
import type { CapacityMeter, Units } from '../shared/store/client.js';
import { meterCapacity } from '../shared/store/client.js';
import { dynamoPayments, getPayment } from '../shared/store/payments.js';
import { clientAuthFrom, issueToken } from '../shared/usecases/auth/issue-token.js';
import { factoryOf } from '../shared/runtime/deposit-addresses.js';
import { scannerRuntime } from '../shared/runtime/payments.js';
import { scannersRuntime } from '../shared/runtime/scanner.js';
import { scanOnce } from '../shared/usecases/scanner/scan.js';
import type { ScanDeps } from '../shared/usecases/scanner/scan.js';
import { runScanners } from '../shared/usecases/scanner/run-scanners.js';
import { rawCreationWrite } from './payments.js';
import type { SweepPort } from '../shared/usecases/payments/settle.js';
import { directFactorySweep } from '../shared/chain/evm/sweep-direct.js';
import { createTenant } from '../shared/usecases/tenants/create-tenant.js';
import { configureTenant } from '../shared/usecases/tenants/manage-tenants.js';
import { tenantsRuntime } from '../shared/runtime/tenants.js';
import { authRuntime } from '../shared/runtime/auth.js';
import { benchWorker } from './worker-wrap.js';

export interface LifecycleUnits {
  /** Mean per lifecycle. */
  readonly create: Units;
  readonly detect: Units;
  readonly confirm: Units;
  readonly sweepCredit: Units;
  readonly outbox: Units;
  readonly total: Units;
  /** Table calls per lifecycle, and those answered without ConsumedCapacity (failed conditions: counted 0). */
  readonly calls: number;
  readonly unreported: number;
  /** Scanner passes per lifecycle (detect + confirm/sweep). */
  readonly passes: number;
  /** One scanner pass with nothing to do (cursor read and moved, open-payment query): part of every pass. */
  readonly idlePass: Units;
  /**
   * A further pass while the payment is confirming and no block came (measured once, in the warm-up lifecycle,
   * not part of the lifecycle figures): on a chain with more confirmations every pass until then costs this.
   * Null with interval mining (a block may come during the pass).
   */
  readonly confirmingPass: Units | null;
  /** Baseline: raw TransactWriteItems of the creation items (payment, address item, counter, outbox event). */
  readonly rawCreate: Units;
  /** Table operations that answered without ConsumedCapacity at least once (name -> calls without). */
  readonly unreportedByCommand: Readonly<Record<string, number>>;
  /** Calls per lifecycle by operation (GetItem, Query, TransactWriteItems, ...). */
  readonly callsByCommand: Readonly<Record<string, number>>;
  /** Stream records the event router received, and messages webhook-delivery handled, per lifecycle. */
  readonly outboxRecords: number;
  readonly webhookMessages: number;
  readonly lifecycles: number;
}

export interface DetectionDelay {
  readonly deposits: number;
  readonly detected: number;
  readonly pauseMs: number;
  readonly pollMs: number;
  /** From the moment the bench observed the deposit's receipt. */
  readonly fromReceipt: Percentiles;
  /** From the block's timestamp (whole seconds: up to 1 s early). */
  readonly fromBlockTimestamp: Percentiles;
  readonly scannerPasses: number;
}

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export interface PaymentLifecycleBench {
  /** 'automine' or 'interval N s'. */
  readonly blockMode: string;
  readonly units: LifecycleUnits;
  readonly delay: DetectionDelay;
}

export interface PaymentLifecycleOptions {
  /** Lifecycles measured (after one unmeasured warm-up). Default 2. */
  readonly lifecycles?: number;
  /** Deposits of the detection-delay figure. Default 10. */
  readonly deposits?: number;
  /** Anvil mining interval; automine when absent (the local stack's default). */
  readonly blockTimeSeconds?: number;
  /** Scanner pause; default as runScanners: min(network block time, 2 s). */
  readonly pauseMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const add = (a: Units, b: Units): Units => ({ read: a.read + b.read, write: a.write + b.write });
const minus = (a: Units, b: Units): Units => ({ read: a.read - b.read, write: a.write - b.write });
const scale = (a: Units, k: number): Units => ({ read: a.read * k, write: a.write * k });
const ZERO: Units = { read: 0, write: 0 };

export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? Number.NaN };
}

/**
 * The outbox path of the stack: event-router as is, webhook-delivery behind a gate. `settle()` opens the gate
 * and waits until both have been idle for a while, then closes it again.
 */
function outboxWorkers(): { workers: PollerWorker[]; settle(): Promise<void>; open(): void; records: Record<string, number> } {
  let release: () => void = () => undefined;
  let gate: Promise<void> | null = null;
  let inFlight = 0;
  let last = Date.now();
  const records: Record<string, number> = {};
  const wrap = (name: string, entry: string, gated: boolean): PollerWorker =>
    benchWorker(name, entry, async (event, context, load) => {
      last = Date.now();
      inFlight++;
      records[name] = (records[name] ?? 0) + ((event as { Records?: unknown[] }).Records?.length ?? 0);
      try {
        if (gated && gate) await gate;
        return await (
          await load()
        )(event, context);
      } finally {
        inFlight--;
        last = Date.now();
      }
    });
  const close = () => {
    gate = new Promise<void>((r) => {
      release = r;
    });
  };
  close();
  return {
    records,
    workers: [wrap('event-router', '../functions/event-router/handler.js', false), wrap('webhook-delivery', '../functions/webhook-delivery/handler.js', true)],
    open: () => {
      gate = null;
      release();
    },
    async settle() {
      gate = null;
      release();
      const idleMs = 1_000;
      await sleep(300);
      while (inFlight > 0 || Date.now() - last < idleMs) await sleep(50);
      close();
    },
  };
}

export async function benchPaymentLifecycle(options: PaymentLifecycleOptions = {}): Promise<PaymentLifecycleBench> {
  const outbox = outboxWorkers();
  const stack = await startStack({
    dataDir: null,
    logLevel: 'silent',
    ports: { http: 0, dynamodb: 0, sqs: 0, kms: 0, anvil: 0 },
    parts: { anvil: true, contracts: true, pollers: true },
    workers: outbox.workers,
    // Automine unless a block time is asked for: the figures count units per lifecycle, not wall time.
    blockTimeSeconds: options.blockTimeSeconds ?? null,
  });
  const blockMode =
    options.blockTimeSeconds !== undefined ? `interval mining, a block every ${options.blockTimeSeconds} s` : 'automine, a block per transaction';
  const rpc = stack.stackJson.rpcUrls.ETH as string;
  const tokens = (stack.stackJson.contracts as { tokens: Record<string, string> }).tokens;
  const usdt = tokens.USDT as string;
  resetConfig();
  const paymentDeps = scannerRuntime(config());
  const scanners = scannersRuntime(config());
  const provider = new JsonRpcProvider(rpc, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 10 });
  const kms = new KMSClient({ region: config().AWS_REGION, maxAttempts: 3 });
  let meter: CapacityMeter | undefined;
  try {
    const made = await createTenant({ name: 'Bench lifecycle' }, tenantsRuntime());
    const tenantId = made.tenant.id;
    await configureTenant({ tenant_id: tenantId, requests_per_hour: 100_000_000, payment_creations_per_hour: 100_000_000 }, tenantsRuntime());
    const { access_token: token } = await issueToken(
      { grant_type: 'client_credentials' },
      clientAuthFrom(undefined, { client_id: made.clientId, client_secret: made.clientSecret }),
      new Date(),
      authRuntime(),
    );
    const createPayment = async (): Promise<{ id: string; address: string; units: bigint }> => {
      const res = await fetch(`${stack.apiUrl}/payments/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: '{"amount":"25","currency":"USDTERC20"}',
      });
      const body = (await res.json()) as { transaction_id?: string; address?: string; amount_crypto?: string };
      if (res.status !== 201 || !body.transaction_id || !body.address || !body.amount_crypto)
        throw new Error(`POST /payments/ answered ${res.status}: ${JSON.stringify(body)}`);
      return { id: body.transaction_id, address: body.address, units: toBaseUnits(body.amount_crypto, CURRENCIES.USDTERC20.decimals) };
    };
    const owner = await provider.getSigner(0);
    const payer = await provider.getSigner(2);
    const erc20 = new Contract(usdt, ERC20_ABI, payer);
    await mintTestToken(owner, usdt, payer.address, 10n ** 15n);
    const deposit = async (address: string, units: bigint): Promise<{ observedAt: number; blockTimestampMs: number }> => {
      const tx = (await erc20.getFunction('transfer')(address, units)) as { wait(): Promise<{ blockNumber: number; status: number | null } | null> };
      const receipt = await tx.wait();
      const observedAt = Date.now();
      if (!receipt || receipt.status !== 1) throw new Error('deposit reverted');
      const block = await provider.getBlock(receipt.blockNumber);
      return { observedAt, blockTimestampMs: (block?.timestamp ?? Number.NaN) * 1000 };
    };

    const keyId = stack.env.HOT_WALLET_KEY_ID;
    if (!keyId) throw new Error('the stack has no hot-wallet key');
    const signer = new KmsSigner(kms, keyId, provider);
    // As the scanner runtime's sweeps on the local stack (PAYMENT_SWEEPS unset, STAGE=local): the factory
    // called directly, signed through KMS, completed when the receipt is in.
    const direct = directFactorySweep((network) => factoryOf(config(), network), signer);
    let beforeSweep: Units | null = null;
    const sweep: SweepPort = {
      requestSweep: async (request) => {
        beforeSweep = totals();
        return direct.requestSweep(request);
      },
    };
    const chain = jsonRpcChain(rpc);
    const deps: ScanDeps = { ...paymentDeps, source: evmDepositSource(chain), sweep };
    // The bench's own reads of a payment's status are the observer's, not the gateway's: left out of every figure.
    let observed = ZERO;
    let observedCalls = 0;
    const totals = (): Units => minus(meter?.totals() ?? ZERO, observed);
    const statusOf = async (id: string): Promise<string> => {
      const before = meter?.totals() ?? ZERO;
      const status = (await getPayment(tenantId, id))?.status ?? 'missing';
      observed = add(observed, minus(meter?.totals() ?? ZERO, before));
      observedCalls++;
      return status;
    };

    /* ---------- 1. units per lifecycle ---------- */
    await scanOnce('ETH', deps); // starts the cursor at the head
    await outbox.settle(); // the tenant's own events
    meter = meterCapacity();

    const idleStart = totals();
    await scanOnce('ETH', deps);
    const idlePass = minus(totals(), idleStart);

    const lifecycles = Math.max(1, options.lifecycles ?? 2);
    let sum = { create: ZERO, detect: ZERO, confirm: ZERO, sweepCredit: ZERO, outbox: ZERO };
    let passes = 0;
    let confirmingPass: Units | null = null;
    let startTotals = meter.totals();
    let observedCallsStart = observedCalls;
    let recordsStart = { ...outbox.records };
    for (let i = 0; i <= lifecycles; i++) {
      const warmUp = i === 0;
      if (i === 1) {
        startTotals = meter.totals();
        observedCallsStart = observedCalls;
        recordsStart = { ...outbox.records };
      }
      let consumers = ZERO;
      const settle = async () => {
        const before = totals();
        await outbox.settle();
        consumers = add(consumers, minus(totals(), before));
      };
      const s0 = totals();
      const p = await createPayment();
      const s1 = totals();
      await settle();

      const s1a = totals();
      await deposit(p.address, p.units);
      let lifecyclePasses = 1;
      await scanOnce('ETH', deps);
      const detected = await statusOf(p.id);
      // With interval mining a block may come between the receipt and the pass: then the same pass confirms.
      if (detected === 'waiting') throw new Error("after the deposit's pass the payment is still waiting");
      const s2 = totals();
      await settle();
      if (warmUp && options.blockTimeSeconds === undefined) {
        const before = totals();
        await scanOnce('ETH', deps);
        confirmingPass = minus(totals(), before);
        await settle();
      }

      const s2a = totals();
      beforeSweep = null;
      let status = detected;
      for (let k = 0; k < 10 && status !== 'completed'; k++) {
        await provider.send('evm_mine', []);
        await scanOnce('ETH', deps);
        lifecyclePasses++;
        status = await statusOf(p.id);
      }
      if (status !== 'completed') throw new Error(`the payment is ${status} after 10 passes`);
      const s3 = totals();
      const sM: Units = beforeSweep ?? s3;
      await settle();

      if (!warmUp) {
        passes += lifecyclePasses;
        sum = {
          create: add(sum.create, minus(s1, s0)),
          detect: add(sum.detect, minus(s2, s1a)),
          confirm: add(sum.confirm, minus(sM, s2a)),
          sweepCredit: add(sum.sweepCredit, minus(s3, sM)),
          outbox: add(sum.outbox, consumers),
        };
      }
    }
    const end = meter.totals();
    const observing = observedCalls - observedCallsStart;
    const recordsEnd = { ...outbox.records };
    const unreportedByCommand = Object.fromEntries(
      Object.entries(end.byCommand)
        .filter(([, c]) => c.unreported > 0)
        .map(([name, c]) => [name, c.unreported]),
    );
    const callsByCommand = Object.fromEntries(
      Object.entries(end.byCommand)
        .map(([name, c]): [string, number] => [
          name.replace(/Command$/, ''),
          (c.calls - (startTotals.byCommand[name]?.calls ?? 0) - (name === 'GetItemCommand' ? observing : 0)) / lifecycles,
        ])
        .filter(([, n]) => n > 0),
    );
    const recordsOf = (name: string) => ((recordsEnd[name] ?? 0) - (recordsStart[name] ?? 0)) / lifecycles;

    // Baseline: the creation items alone, as one raw TransactWriteItems (same items as bench/payments.ts).
    const rawRuns = 5;
    const rawStart = totals();
    for (let i = 0; i < rawRuns; i++) await dynamoPayments.create(await rawCreationWrite(tenantId, paymentDeps), new Date());
    const rawCreate = scale(minus(totals(), rawStart), 1 / rawRuns);
    meter.stop();
    meter = undefined;

    const per = 1 / lifecycles;
    const mean = {
      create: scale(sum.create, per),
      detect: scale(sum.detect, per),
      confirm: scale(sum.confirm, per),
      sweepCredit: scale(sum.sweepCredit, per),
      outbox: scale(sum.outbox, per),
    };
    const units: LifecycleUnits = {
      ...mean,
      total: [mean.create, mean.detect, mean.confirm, mean.sweepCredit, mean.outbox].reduce(add, ZERO),
      calls: (end.calls - startTotals.calls - observing) / lifecycles,
      unreported: (end.unreported - startTotals.unreported) / lifecycles,
      callsByCommand,
      outboxRecords: recordsOf('event-router'),
      webhookMessages: recordsOf('webhook-delivery'),
      passes: passes / lifecycles,
      idlePass,
      confirmingPass,
      rawCreate,
      unreportedByCommand,
      lifecycles,
    };
    chain.close();
    outbox.open();

    /* ---------- 2. block -> confirming, scanner looping as in production ---------- */
    const count = Math.max(1, options.deposits ?? 10);
    const pauseMs = options.pauseMs ?? Math.min(NETWORKS.ETH.blockTimeMs, 2_000);
    const payments: { id: string; address: string; units: bigint }[] = [];
    for (let i = 0; i < count; i++) payments.push(await createPayment());
    let stop = false;
    let scannerPasses = 0;
    const loop = (async () => {
      // runScanners ends its invocation after a pass; the next invocation starts after the usual pause.
      while (!stop) {
        scannerPasses += (await runScanners({ budgetMs: 4 * pauseMs, pauseMs }, scanners)).length;
        if (!stop) await sleep(pauseMs);
      }
    })();
    const pollMs = 25;
    const fromReceipt: number[] = [];
    const fromBlock: number[] = [];
    const watches: Promise<void>[] = [];
    const deadlineMs = 30_000 + 4 * pauseMs;
    try {
      await sleep(pauseMs);
      for (const p of payments) {
        await sleep((0.2 + Math.random()) * pauseMs);
        const sent = await deposit(p.address, p.units);
        watches.push(
          (async () => {
            const giveUp = sent.observedAt + deadlineMs;
            while (Date.now() < giveUp) {
              const status = await statusOf(p.id);
              if (status !== 'waiting') {
                const at = Date.now();
                fromReceipt.push(at - sent.observedAt);
                fromBlock.push(at - sent.blockTimestampMs);
                return;
              }
              await sleep(pollMs);
            }
          })(),
        );
      }
      await Promise.all(watches);
    } finally {
      stop = true;
      await loop;
    }
    const delay: DetectionDelay = {
      deposits: count,
      detected: fromReceipt.length,
      pauseMs,
      pollMs,
      fromReceipt: percentiles(fromReceipt),
      fromBlockTimestamp: percentiles(fromBlock),
      scannerPasses,
    };
    return { blockMode, units, delay };
  } finally {
    meter?.stop();
    kms.destroy();
    provider.destroy();
    await stack.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchPaymentLifecycle({ deposits: Number(process.env.BENCH_DEPOSITS ?? 10) }).then(
    (result) => {
      console.log(JSON.stringify(result, null, 2));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
