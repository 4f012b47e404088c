/**
 * What AWS would bill, counted on the local stack (DynamoDB Local, SQS, KMS endpoint, anvil, HTTP server, and of
 * the pollers the outbox path and the sweep's: event-router on the table stream, webhook-delivery, chain-tx and
 * chain-results on their queues):
 *
 * 1. Variable: N complete payment lifecycles in groups whose deposits land in one block (POST /payments/ through the
 *    HTTP server, the deposits on anvil, scanner passes to `sending`, the group's sweep as production does it
 *    (PAYMENT_SWEEPS=engine: one chain transaction requested, signed through KMS by chain-tx, followed, its result
 *    completing and crediting the payments in chain-results), the outbox routed and the webhooks delivered to a
 *    receiver). Counted while they run: HTTP API requests; Lambda invocations and their durations (the API call
 *    timed around the HTTP request; the queue and stream workers timed around their handlers; the scanner's and the
 *    follower's passes timed, the scanner's beyond an idle pass); DynamoDB units from ReturnConsumedCapacity
 *    (shared/store/client.ts `meterCapacity`); every SQS, KMS and S3 request any SDK client of the process sends
 *    (node:http requests to those servers, by their X-Amz-Target); log bytes the handlers print (stdout/stderr).
 * 2. Idle: each scheduled worker invoked on the idle stack as its schedule does, timed and counted the same way;
 *    the scanners that loop for their whole invocation (chain-scanner, custody-solana) run a short budget, and
 *    their per-second figures are taken over the budget the deployed function has.
 * 3. The synthesised stack (bundling skipped): function memory and architecture, alarms, KMS keys, dashboards,
 *    log groups, queues and event source mappings.
 *
 * Prices: bench/prices.ts. Pricing and printing: bench/cost-report.ts.
 */
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Http from 'node:http';
import type { Context } from 'aws-lambda';
import { Contract, JsonRpcProvider } from 'ethers';
import { WAKE_BATCH_SIZE, WORKER_FUNCTIONS } from '../infra/definition.js';
import { dynamoScanCursors } from '../shared/store/scanner.js';
import type { PollerWorker } from '../infra/local/pollers.js';
import { startStack } from '../infra/local/stack.js';
import { mintTestToken } from '../infra/local/dev/deploy.js';
import { ERC20_ABI } from '../shared/chain/evm/abi.js';
import { jsonRpcChain } from '../shared/chain/evm/scanner.js';
import { evmDepositSource } from '../shared/chain/evm/deposit-source.js';
import { config, resetConfig } from '../shared/config/config.js';
import { CURRENCIES } from '../shared/domain/currencies.js';
import { toBaseUnits } from '../shared/domain/money.js';
import type { CapacityMeter } from '../shared/store/client.js';
import { meterCapacity } from '../shared/store/client.js';
import { getPayment } from '../shared/store/payments.js';
import { scannerRuntime } from '../shared/runtime/payments.js';
import { authRuntime } from '../shared/runtime/auth.js';
import { tenantsRuntime } from '../shared/runtime/tenants.js';
import { clientAuthFrom, issueToken } from '../shared/usecases/auth/issue-token.js';
import { scanOnce } from '../shared/usecases/scanner/scan.js';
import { scannersRuntime } from '../shared/runtime/scanner.js';
import { chainTxRuntime } from '../shared/runtime/chain-tx.js';
import { followOnce } from '../shared/usecases/chain-tx/follow-chain-txs.js';
import type { ScanDeps } from '../shared/usecases/scanner/scan.js';
import { createTenant } from '../shared/usecases/tenants/create-tenant.js';
import { configureTenant } from '../shared/usecases/tenants/manage-tenants.js';
import { createSettings } from '../shared/usecases/webhooks/create-settings.js';
import { webhooksRuntime } from '../shared/runtime/webhooks.js';
import { stackInventory } from './cost-inventory.js';
import { benchWorker } from './worker-wrap.js';
import { workerMemory } from './cost-measure.js';
import { billWrites } from './write-billing.js';
import type { WriteBilling } from './write-billing.js';
import { newTally } from './cost-tally.js';
import type { CostMeasurement, IdleWorker, Tally } from './cost-tally.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/* ---------- counting: node:http requests to the AWS stand-ins, printed bytes, handler time ---------- */

let current: Tally | null = null;
const servicePorts = new Map<number, string>();
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  // The CommonJS module object: the SDK's node-http-handler takes `request` from it when it makes its first agent.
  const require = createRequire(import.meta.url);
  const http = require('node:http') as typeof Http;
  const real = http.request;
  http.request = function (this: unknown, ...args: unknown[]) {
    const options = args[0];
    if (current && typeof options === 'object' && options !== null && !(options instanceof URL)) {
      const o = options as { port?: unknown; method?: string; headers?: Record<string, unknown> };
      const service = servicePorts.get(Number(o.port));
      // GetQueueAttributes: only the local queue source asks it (the stand-in for Lambda's event source mapping).
      const asked = Object.entries(o.headers ?? {}).find(([k]) => k.toLowerCase() === 'x-amz-target')?.[1];
      if (service && asked !== 'AmazonSQS.GetQueueAttributes') {
        const target = Object.entries(o.headers ?? {}).find(([k]) => k.toLowerCase() === 'x-amz-target')?.[1];
        const operation = typeof target === 'string' ? (target.split('.').pop() ?? target) : (o.method ?? 'GET');
        const key = `${service} ${operation}`;
        current.requests[key] = (current.requests[key] ?? 0) + 1;
      }
    }
    return (real as (...a: unknown[]) => ReturnType<typeof real>).apply(http, args);
  } as typeof http.request;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...a: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (!current) return write(chunk, ...rest);
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
      current.logBytes += Buffer.byteLength(text);
      for (const line of text.split('\n')) if (line.includes('"CloudWatchMetrics"')) for (const m of emfMetrics(line)) current.metrics.add(m);
      // Swallowed: counted, not shown.
      const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof stream.write;
  }
}

/** The metrics (namespace, name, dimension values) an EMF line defines. */
function emfMetrics(line: string): string[] {
  try {
    const record = JSON.parse(line) as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
    };
    return record._aws.CloudWatchMetrics.flatMap((d) =>
      d.Metrics.flatMap((m) => d.Dimensions.map((set) => `${d.Namespace} ${m.Name} ${set.map((k) => `${k}=${String(record[k])}`).join(',')}`)),
    );
  } catch {
    return [];
  }
}

function invoked(tally: Tally, name: string, ms: number): void {
  const entry = (tally.invocations[name] ??= { count: 0, billedMs: 0 });
  entry.count++;
  entry.billedMs += Math.max(1, Math.ceil(ms));
}

/** Runs `work` with `tally` counting (one at a time: the bench runs its phases in sequence). */
async function counting<T>(tally: Tally, meter: CapacityMeter, work: () => Promise<T>): Promise<T> {
  const before = meter.totals();
  current = tally;
  try {
    return await work();
  } finally {
    current = null;
    const after = meter.totals();
    tally.units = { read: tally.units.read + after.read - before.read, write: tally.units.write + after.write - before.write };
    tally.tableCalls += after.calls - before.calls;
  }
}

/* ---------- the outbox workers, timed ---------- */

function outboxWorkers(): {
  workers: PollerWorker[];
  settle(): Promise<void>;
  sink: { tally: Tally | null };
  /** The largest event each worker was invoked with (by its JSON), kept to measure the worker's memory on. */
  largest: Map<string, unknown>;
} {
  const largest = new Map<string, unknown>();
  const sizes = new Map<string, number>();
  let inFlight = 0;
  let last = Date.now();
  const sink: { tally: Tally | null } = { tally: null };
  const wrap = (name: string, entry: string, trigger?: PollerWorker['trigger']): PollerWorker =>
    benchWorker(
      name,
      entry,
      async (event, context, load) => {
        inFlight++;
        last = Date.now();
        const size = JSON.stringify(event).length;
        if (size > (sizes.get(name) ?? -1)) {
          sizes.set(name, size);
          largest.set(name, event);
        }
        const handler = await load();
        const started = performance.now();
        try {
          return await handler(event, context);
        } finally {
          if (sink.tally) invoked(sink.tally, name, performance.now() - started);
          inFlight--;
          last = Date.now();
        }
      },
      trigger,
    );
  return {
    sink,
    largest,
    workers: [
      wrap('event-router', '../functions/event-router/handler.js'),
      wrap('webhook-delivery', '../functions/webhook-delivery/handler.js'),
      wrap('chain-tx', '../functions/chain-tx/handler.js'),
      wrap('chain-results', '../functions/chain-results/handler.js'),
      // Woken by each payment's creation (its schedule's runs are the idle section's): while payments keep coming the
      // network's loop holds the lease, so a woken run reads it and ends.
      wrap('chain-scanner', '../functions/chain-scanner/handler.js', { kind: 'queue', queue: 'scanner-wake', batchSize: WAKE_BATCH_SIZE }),
      // Woken by each chain transaction's request: likewise, the follower's loop holds the lease while a sweep is in
      // flight (its passes are timed below), so a woken run reads it and ends.
      wrap('chain-tx-follower', '../functions/chain-tx-follower/handler.js', { kind: 'queue', queue: 'follower-wake', batchSize: WAKE_BATCH_SIZE }),
    ],
    async settle() {
      await sleep(300);
      while (inFlight > 0 || Date.now() - last < 1_000) await sleep(50);
    },
  };
}

/** Event-triggered workers whose memory the bench measures (their deployed size in infra/definition.ts follows it). */
const MEASURED_EVENT_WORKERS = ['event-router', 'webhook-delivery', 'chain-tx', 'chain-results'] as const;

/** Scheduled workers that loop for their whole invocation, with the margin they leave (functions/<name>/handler.ts). */
const LOOPING: Readonly<Record<string, number>> = { 'chain-scanner': 15_000, 'chain-tx-follower': 10_000, 'custody-solana': 15_000 };

/**
 * Sweeps are batched by what one scanner pass finds confirmed: on a chain of 12 s blocks, the deposits of one
 * currency that landed in one block. The figure's volume, 1,000 payments an hour of one currency on Ethereum, is 300
 * blocks an hour, 3.3 deposits a block: the bench lands its deposits 3 a block, and each sweep takes 3 payments.
 */
export const DEPOSITS_PER_BLOCK = 3;
export const DEPOSITS_PER_BLOCK_ASSUMPTION = '1,000 payments an hour of one currency on Ethereum (12 s blocks): 3 deposits a block';

/** Groups of lifecycles run after the counted ones with every write billed item by item (bench/write-billing.ts). */
const BILLED_GROUPS = 2;

export interface CostOptions {
  /** Lifecycles counted (after one uncounted warm-up). Default 30. */
  readonly payments?: number;
  /** Deposits of one currency landing in one block, swept together (default `DEPOSITS_PER_BLOCK`). */
  readonly depositsPerBlock?: number;
  /** Seconds each looping scanner runs idle. Default 5. */
  readonly loopSeconds?: number;
}

export async function benchCost(options: CostOptions = {}): Promise<CostMeasurement> {
  const t0 = Date.now();
  install();
  process.env.LOCAL_METRICS = 'true';
  const inventory = stackInventory();
  const outbox = outboxWorkers();
  // A receiver for the tenant's webhooks: answers 200 to everything, as a merchant's endpoint does.
  const { createServer } = await import('node:http');
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  // Sweeps as in production (the local stack's default is the scanner's direct factory call).
  const sweepsBefore = process.env.PAYMENT_SWEEPS;
  process.env.PAYMENT_SWEEPS = 'engine';
  const stack = await startStack({
    dataDir: null,
    logLevel: 'silent',
    ports: { http: 0, dynamodb: 0, sqs: 0, kms: 0, anvil: 0 },
    parts: { anvil: true, contracts: true, pollers: true },
    workers: outbox.workers,
    blockTimeSeconds: null,
  });
  const portOf = (url: string | null | undefined): number => (url ? Number(new URL(url).port) : -1);
  servicePorts.set(portOf(stack.stackJson.sqsUrl), 'sqs');
  servicePorts.set(portOf(stack.stackJson.kmsUrl), 'kms');
  servicePorts.set(portOf(stack.stackJson.s3Url), 's3');
  const rpc = stack.stackJson.rpcUrls.ETH as string;
  const usdt = (stack.stackJson.contracts as { tokens: Record<string, string> }).tokens.USDT as string;
  resetConfig();
  const paymentDeps = scannerRuntime(config());
  const provider = new JsonRpcProvider(rpc, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 10 });
  const meter = meterCapacity();
  const chain = jsonRpcChain(rpc);
  // The workers whose memory is measured, bundled as deployed (workerBundle).
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
  const bundles = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'cost-memory-'));
  try {
    const made = await createTenant({ name: 'Bench cost' }, tenantsRuntime());
    const tenantId = made.tenant.id;
    await configureTenant({ tenant_id: tenantId, requests_per_hour: 100_000_000, payment_creations_per_hour: 100_000_000 }, tenantsRuntime());
    await createSettings({ tenantId, credential: 'bench' }, { callback_url: receiverUrl }, new Date(), webhooksRuntime());
    const { access_token: token } = await issueToken(
      { grant_type: 'client_credentials' },
      clientAuthFrom(undefined, { client_id: made.clientId, client_secret: made.clientSecret }),
      new Date(),
      authRuntime(),
    );
    const owner = await provider.getSigner(0);
    const payer = await provider.getSigner(2);
    const erc20 = new Contract(usdt, ERC20_ABI, payer);
    await mintTestToken(owner, usdt, payer.address, 10n ** 15n);
    // Production's sweep path (PAYMENT_SWEEPS=engine, set before the stack's configuration is read): the scanner
    // requests ONE chain transaction per batch, the event router sends it to the transfers queue, chain-tx signs it
    // through KMS and broadcasts it, the follower sees it confirmed, chain-results completes the batch's payments.
    const sweep = scannersRuntime(config()).sweepFor({ network: 'ETH', family: 'evm', url: rpc });
    const deps: ScanDeps = { ...paymentDeps, source: evmDepositSource(chain), sweep };
    const follower = chainTxRuntime(config());

    const lifecycle = newTally();
    // A scanner pass with nothing to do, timed: the chain-scanner runs its minute whatever happens, so only a pass's
    // time beyond this is the lifecycle's.
    await scanOnce('ETH', deps);
    await outbox.settle();
    const idlePassMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const s = performance.now();
      await scanOnce('ETH', deps);
      idlePassMs.push(performance.now() - s);
    }
    const idlePass = idlePassMs.sort((a, b) => a - b)[2] ?? 0;

    const batch = Math.max(1, Math.min(options.depositsPerBlock ?? DEPOSITS_PER_BLOCK, config().SWEEP_BATCH_MAX_SALTS));
    const groups = Math.max(1, Math.ceil((options.payments ?? 30) / batch));
    const lifecycles = groups * batch;
    let statusReads = 0;
    let statusRead = { read: 0, write: 0, calls: 0 };
    let sweeps = 0;
    // Groups counted into `lifecycle` (not the warm-up, not the billed writes' groups, which read around every write).
    let counted = false;
    const statusOf = async (id: string): Promise<string> => {
      if (counted) statusReads++;
      return (await getPayment(tenantId, id))?.status ?? 'missing';
    };
    /** Passes of `name` (no invocation of its own: a scheduled worker's minute), timed beyond `idleMs`. */
    const pass = async (tally: Tally, name: string, idleMs: number, work: () => Promise<unknown>): Promise<void> => {
      const s = performance.now();
      await work();
      invoked(tally, name, Math.max(0, performance.now() - s - idleMs));
      tally.invocations[name]!.count--;
    };
    // The network's scheduled loop, which runs while payments are open (its passes are the ones timed below), holds
    // its lease: the runs each payment's creation wakes find it held.
    const loop = `bench loop ${Date.now()}`;
    await dynamoScanCursors.acquireLease('ETH', loop, new Date(), new Date(Date.now() + 3_600_000));
    await follower.deps.store.acquireLease('ETH', loop, new Date(), 3_600);
    // Group 0 is the warm-up (uncounted); each group is `batch` payments whose deposits land in one block. The last
    // BILLED_GROUPS, after the counted ones, bill their writes item by item (bench/write-billing.ts), uncounted otherwise.
    let billing: WriteBilling | null = null;
    for (let g = 0; g <= groups + BILLED_GROUPS; g++) {
      counted = g > 0 && g <= groups;
      if (g === groups + 1) billing = billWrites();
      const tally = counted ? lifecycle : newTally();
      outbox.sink.tally = tally;
      await counting(tally, meter, async () => {
        const made: { id: string; address: string; units: bigint }[] = [];
        for (let j = 0; j < batch; j++) {
          const started = performance.now();
          const res = await fetch(`${stack.apiUrl}/payments/`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: '{"amount":"25","currency":"USDTERC20"}',
          });
          const body = (await res.json()) as { transaction_id?: string; address?: string; amount_crypto?: string };
          // The HTTP round trip through the local server: an upper bound of the payments Lambda's duration.
          invoked(tally, 'payments', performance.now() - started);
          tally.apiRequests++;
          if (res.status !== 201 || !body.transaction_id || !body.address || !body.amount_crypto)
            throw new Error(`POST /payments/ answered ${res.status}: ${JSON.stringify(body)}`);
          made.push({ id: body.transaction_id, address: body.address, units: toBaseUnits(body.amount_crypto, CURRENCIES.USDTERC20.decimals) });
        }
        // The payers' transfers, mined in one block (anvil, which nothing counts).
        await provider.send('evm_setAutomine', [false]);
        try {
          const sent: { wait(): Promise<unknown> }[] = [];
          for (const p of made) sent.push((await erc20.getFunction('transfer')(p.address, p.units)) as { wait(): Promise<unknown> });
          await provider.send('anvil_mine', ['0x1']);
          await Promise.all(sent.map((tx) => tx.wait()));
        } finally {
          await provider.send('evm_setAutomine', [true]);
        }
        const statuses = async (): Promise<string[]> => Promise.all(made.map((p) => statusOf(p.id)));
        let now = await statuses();
        // Scanner passes until the batch's sweep is requested (every payment `sending`).
        for (let k = 0; k < 12 && !now.every((s) => s === 'sending' || s === 'completed'); k++) {
          if (k > 0) await provider.send('evm_mine', []);
          await pass(tally, 'chain-scanner (time beyond an idle pass)', idlePass, () => scanOnce('ETH', deps));
          now = await statuses();
        }
        if (!now.every((s) => s === 'sending')) throw new Error(`payments ${now.join(', ')} after 12 passes, not all sending`);
        const references = new Set(await Promise.all(made.map(async (p) => (await getPayment(tenantId, p.id))?.sweepReference)));
        if (counted) {
          statusReads += made.length;
          sweeps += references.size;
        }
        // The request routed to chain-tx, signed and broadcast; then the follower's passes until it is confirmed and
        // its result routed to chain-results, which completes the payments.
        await outbox.settle();
        for (let k = 0; k < 20 && !now.every((s) => s === 'completed'); k++) {
          await provider.send('evm_mine', []);
          await pass(tally, 'chain-tx-follower (passes while the sweep is in flight)', 0, () => followOnce('ETH', follower.deps));
          await outbox.settle();
          now = await statuses();
        }
        if (!now.every((s) => s === 'completed')) throw new Error(`payments ${now.join(', ')} after 20 follower passes, not all completed`);
        await outbox.settle();
        if (g === 0) {
          // The bench's own status read, measured once while nothing else runs: taken off the counted lifecycles.
          const before = meter.totals();
          await getPayment(tenantId, made[0]!.id);
          const after = meter.totals();
          statusRead = { read: after.read - before.read, write: after.write - before.write, calls: after.calls - before.calls };
        }
      });
    }
    outbox.sink.tally = null;
    const billed = billing?.totals();
    billing?.stop();
    if (!billed || billed.table === 0) throw new Error('no write was billed');
    await dynamoScanCursors.releaseLease('ETH', loop);
    await follower.deps.store.releaseLease('ETH', loop);
    lifecycle.units = { read: lifecycle.units.read - statusReads * statusRead.read, write: lifecycle.units.write - statusReads * statusRead.write };
    lifecycle.tableCalls -= statusReads * statusRead.calls;
    const perBilled = 1 / (BILLED_GROUPS * batch);
    if (!lifecycle.invocations['webhook-delivery']) throw new Error('no webhook was delivered: the tenant has no webhook receiver');

    /* ---------- memory of the I/O-bound event workers ---------- */
    // Each replays the largest event it was given, alone in a fresh Node process, after the lifecycles: the router
    // routes its records again, webhook-delivery finds its deliveries made, chain-tx its request sent and chain-results
    // its payments completed (at-least-once: nothing is sent or credited twice).
    const eventMemory: { name: string; peakRssMb: number; heapUsedMb: number; eventBytes: number; failures: number }[] = [];
    for (const name of MEASURED_EVENT_WORKERS) {
      const event = outbox.largest.get(name);
      const timeout = WORKER_FUNCTIONS.find((f) => f.name === name)?.timeoutSeconds ?? 30;
      if (event !== undefined)
        eventMemory.push({ name, ...(await workerMemory(name, timeout * 1000, bundles, event)), eventBytes: JSON.stringify(event).length });
    }
    await outbox.settle();

    /* ---------- idle: each scheduled worker, as its schedule invokes it ---------- */
    const idle: IdleWorker[] = [];
    const loopSeconds = options.loopSeconds ?? 5;
    for (const w of WORKER_FUNCTIONS.filter((f) => f.trigger.kind === 'schedule')) {
      type Scheduled = (event: { time: string }, context: Partial<Context>) => Promise<unknown>;
      const margin = LOOPING[w.name];
      const loops = margin !== undefined;
      // custody-solana pauses CUSTODY_SOLANA_POLL_SECONDS (5 s) between passes and stops when the next pause would
      // pass its budget: it gets a budget of two pauses and a bit, so that it loops as in its minute.
      const seconds = w.name === 'custody-solana' ? Math.max(loopSeconds, 2 * config().CUSTODY_SOLANA_POLL_SECONDS + 1) : loopSeconds;
      const remaining = loops ? margin + seconds * 1000 : w.timeoutSeconds * 1000;
      let runs = 0;
      const tally = newTally();
      let failed: string | null = null;
      let measuredMs = 0;
      try {
        const { handler } = (await import(`../functions/${w.name}/handler.js`)) as { handler: Scheduled };
        const invoke = async (t: Tally): Promise<number> => {
          const startedAt = Date.now();
          const context: Partial<Context> = {
            awsRequestId: `bench-${w.name}-${startedAt}`,
            functionName: w.name,
            getRemainingTimeInMillis: () => remaining - (Date.now() - startedAt),
          };
          const s = performance.now();
          await counting(t, meter, () => handler({ time: new Date().toISOString() }, context));
          const ms = performance.now() - s;
          invoked(t, w.name, ms);
          return ms;
        };
        // A cold run, uncounted (module-scope work: clients, the hot wallet's public key), then up to 3 warm ones; a
        // looper that loops its whole budget is measured once (it released its lease: the next run could go on).
        await invoke(newTally());
        while (runs < 3) {
          measuredMs += await invoke(tally);
          runs++;
          if (loops && measuredMs >= 500 * seconds) break;
        }
      } catch (error) {
        failed = error instanceof Error ? error.message : String(error);
      }
      runs = Math.max(1, runs);
      const per = 1 / runs;
      const scaled: Tally = {
        requests: Object.fromEntries(Object.entries(tally.requests).map(([k, v]) => [k, v * per])),
        invocations: Object.fromEntries(Object.entries(tally.invocations).map(([k, v]) => [k, { count: v.count * per, billedMs: v.billedMs * per }])),
        units: { read: tally.units.read * per, write: tally.units.write * per },
        tableCalls: tally.tableCalls * per,
        apiRequests: 0,
        logBytes: tally.logBytes * per,
        metrics: tally.metrics,
      };
      // A looper that returned well before its budget (nothing to watch, nothing configured for it, or its lease held)
      // is billed as it ran.
      const looped = loops && measuredMs * per >= 500 * seconds;
      let memory: IdleWorker['memory'] = null;
      if (loops && !failed) memory = await workerMemory(w.name, remaining, bundles);
      idle.push({
        name: w.name,
        perInvocation: scaled,
        runs,
        loops: looped,
        returnedEarly: loops && !looped,
        measuredSeconds: (measuredMs * per) / 1000,
        billedSeconds: looped ? w.timeoutSeconds - margin / 1000 : (measuredMs * per) / 1000,
        failed,
        loopBudgetSeconds: loops ? w.timeoutSeconds - margin / 1000 : null,
        memory,
      });
    }
    return {
      payments: lifecycles,
      lifecycle,
      idle,
      inventory,
      eventMemory,
      billedWrites: {
        payments: BILLED_GROUPS * batch,
        table: billed.table * perBilled,
        indexes: billed.indexes * perBilled,
        byKind: Object.fromEntries(Object.entries(billed.byKind).map(([kind, u]) => [kind, { table: u.table * perBilled, indexes: u.indexes * perBilled }])),
      },
      sweeps: {
        count: sweeps,
        depositsPerBlock: batch,
        assumption: batch === DEPOSITS_PER_BLOCK ? DEPOSITS_PER_BLOCK_ASSUMPTION : `${batch} deposits a block (BENCH_COST_DEPOSITS_PER_BLOCK)`,
      },
      elapsedSeconds: (Date.now() - t0) / 1000,
    };
  } finally {
    current = null;
    meter.stop();
    chain.close();
    provider.destroy();
    await stack.stop();
    rmSync(bundles, { recursive: true, force: true });
    if (sweepsBefore === undefined) delete process.env.PAYMENT_SWEEPS;
    else process.env.PAYMENT_SWEEPS = sweepsBefore;
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}
