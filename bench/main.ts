/**
 * `npm run bench`: every figure beside a baseline measured in the same run, and their ratio.
 * BENCH_SECONDS sets how long the HTTP figures measure (default 10; GET /user/me/ and POST /payments/ measure 3 times that
 * a side, after a minute of warm-up); BENCH_WEBHOOK_EVENTS the number of webhook
 * events per throughput round (default 1000; BENCH_WEBHOOK_RATE the events per second of the latency run, default
 * half the measured throughput); BENCH_CHAIN_TX the chain transactions signed and broadcast per configuration
 * (default 200); BENCH_LIFECYCLES the payment lifecycles metered for DynamoDB units (default 2, after one
 * warm-up); BENCH_DEPOSITS the deposits timed from block to `confirming` (default 10); BENCH_ANVIL_BLOCK_SECONDS
 * interval mining for those two figures (default: automine, as the local stack).
 * BENCH_HISTORY_RECORDS the movements of the tenant whose history pages are read (default 5000).
 * BENCH_ONLY selects figures, comma-separated: user-me, ledger, payments, webhooks, chain-tx, transactions, payment-lifecycle,
 * checkout, cold-start, sweep-gas, collector-gas, btc, btc-payouts, cost. cost: what AWS would bill per 1,000 completed payments (BENCH_COST_PAYMENTS lifecycles counted, default 30, their deposits BENCH_COST_DEPOSITS_PER_BLOCK a block, default 3, swept together through the chain-tx engine) and per idle month (bench/cost.ts). btc: Bitcoin scanner calls for one block with 10 and 10,000 open BTC payments; btc-payouts: vbytes per payout of a 50-withdrawal BTC batch and KMS calls per batch. cold-start: each API Lambda's bundle (as CDK ships it) and its import in 5 fresh Node processes.
 */
import { startTableOnly } from '../infra/local/table-only.js';
import { benchBatchPayouts, benchChainTx } from './chain-tx.js';
import { benchBtcScanner } from './btc-scanner.js';
import { benchBtcPayouts } from './btc-payouts.js';
import { benchCheckout } from './checkout.js';
import { benchColdStart, COLD_START_GOAL, coldStartVerdict } from './cold-start.js';
import { benchCollectorGas } from './collector-gas.js';
import { benchCost } from './cost.js';
import { printCost } from './cost-report.js';
import { benchLedger } from './ledger.js';
import { benchPaymentLifecycle } from './payment-lifecycle.js';
import { benchPayments } from './payments.js';
import { benchSweepGas } from './sweep-gas.js';
import { benchUserMe } from './user-me.js';
import { benchHistory } from './transactions.js';
import { benchWebhooks } from './webhooks.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
/** autocannon reports latency in whole milliseconds: a p99 under 1 ms reads 0, and no ratio can be taken to it. */
const fmtP99 = (ms: number) => (ms < 1 ? '< 1' : fmt(ms, 1));
const p99Ratio = (ms: number, baselineMs: number) => (baselineMs < 1 ? '-' : fmt(ms / baselineMs, 1));

function table(title: string, rows: string[][]): void {
  console.log(`\n${title}`);
  const columns = Math.max(...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  for (const r of rows) console.log(`  ${widths.map((w, i) => (i === 0 ? (r[i] ?? '').padEnd(w) : (r[i] ?? '').padStart(w))).join('  ')}`);
}

const FIGURES = [
  'user-me',
  'ledger',
  'payments',
  'webhooks',
  'chain-tx',
  'transactions',
  'payment-lifecycle',
  'checkout',
  'cold-start',
  'sweep-gas',
  'collector-gas',
  'btc',
  'btc-payouts',
  'cost',
];
const only = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '');
const unknown = only.filter((f) => !FIGURES.includes(f));
if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown figure(s) ${unknown.join(', ')}; known: ${FIGURES.join(', ')}`);
const selected = (figure: string): boolean => only.length === 0 || only.includes(figure);

async function printPaymentLifecycle(): Promise<void> {
  const blockSeconds = process.env.BENCH_ANVIL_BLOCK_SECONDS;
  const result = await benchPaymentLifecycle({
    lifecycles: Number(process.env.BENCH_LIFECYCLES ?? 2),
    deposits: Number(process.env.BENCH_DEPOSITS ?? 10),
    ...(blockSeconds ? { blockTimeSeconds: Number(blockSeconds) } : {}),
  });
  const u = result.units;
  const units = (x: { read: number; write: number }): [string, string] => [fmt(x.read, 1), fmt(x.write, 1)];
  const ratio = (a: number, b: number): string => (b > 0 ? fmt(a / b, 2) : 'n/a (0)');
  table(
    `Payment lifecycle: DynamoDB units (ReturnConsumedCapacity TOTAL, DynamoDB Local), mean of ${u.lifecycles} lifecycles after a warm-up; anvil ${result.blockMode}`,
    [
      ['', 'RCU', 'WCU'],
      ['create (POST /payments/ through the HTTP server)', ...units(u.create)],
      ['detect (deposit -> confirming, 1 scanner pass)', ...units(u.detect)],
      [`confirm (-> confirmed -> sending, ${fmt(u.passes - 1, 1)} pass)`, ...units(u.confirm)],
      ['sweep + credit (-> completed, merchant credited)', ...units(u.sweepCredit)],
      ['outbox consumers (event-router, webhook-delivery)', ...units(u.outbox)],
      ['whole lifecycle', ...units(u.total)],
      ['raw TransactWriteItems of the creation items', ...units(u.rawCreate)],
      ['ratio lifecycle/creation', ratio(u.total.read, u.rawCreate.read), ratio(u.total.write, u.rawCreate.write)],
      ['one idle scanner pass (in every pass, for all payments)', ...units(u.idlePass)],
      ['one more pass while confirming, no new block (idle pass included)', ...(u.confirmingPass ? units(u.confirmingPass) : ['n/a', 'n/a'])],
    ],
  );
  const calls = Object.entries(u.callsByCommand)
    .map(([name, n]) => `${name} ${fmt(n, 1)}`)
    .join(', ');
  console.log(
    `  (per lifecycle: ${fmt(u.calls, 1)} table calls: ${calls}; ${fmt(u.passes, 1)} scanner passes; ${fmt(u.outboxRecords, 1)} outbox records routed, ${fmt(u.webhookMessages, 1)} webhook-delivery messages)`,
  );
  const unreported = Object.entries(u.unreportedByCommand)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  console.log(
    `  (${fmt(u.unreported, 1)} calls per lifecycle answered without ConsumedCapacity, counted as 0${unreported ? `: ${unreported} in the whole run` : ''})`,
  );
  console.log(
    '  (DynamoDB Local answers CapacityUnits only: counted as RCU for GetItem, BatchGetItem, Query, Scan, TransactGetItems and as WCU for writes; transactional writes count double, as on DynamoDB)',
  );

  const d = result.delay;
  table(
    `Deposit block -> payment reads confirming: ${d.deposits} deposits, scanner looping as chain-scanner (runScanners, pause ${fmt(d.pauseMs)} ms); anvil ${result.blockMode}; store polled every ${d.pollMs} ms`,
    [
      ['', 'p50 ms', 'p99 ms', 'max ms'],
      ['from the receipt seen by the bench', fmt(d.fromReceipt.p50), fmt(d.fromReceipt.p99), fmt(d.fromReceipt.max)],
      ['from the block timestamp (whole seconds)', fmt(d.fromBlockTimestamp.p50), fmt(d.fromBlockTimestamp.p99), fmt(d.fromBlockTimestamp.max)],
      ['scanner pause (baseline)', fmt(d.pauseMs), '', ''],
      ['ratio delay from receipt/pause', fmt(d.fromReceipt.p50 / d.pauseMs, 2), fmt(d.fromReceipt.p99 / d.pauseMs, 2), fmt(d.fromReceipt.max / d.pauseMs, 2)],
    ],
  );
  console.log(
    `  (${d.detected} of ${d.deposits} deposits seen as confirming; ${d.scannerPasses} scanner passes${d.detected < d.deposits ? '; the others were not detected within the deadline and are left out' : ''})`,
  );
}

async function main(): Promise<void> {
  console.log(`Benchmarks (${seconds} s per HTTP run, 10 connections, load generator in its own process)`);

  if (selected('user-me')) {
    const me = await benchUserMe(seconds);
    table('GET /user/me/ through the local HTTP server vs a bare Node HTTP server (same body size)', [
      ['', 'req/s', 'p99 ms'],
      ['gateway', fmt(me.gateway.requestsPerSecond), fmt(me.gateway.p99Ms, 1)],
      ['bare node:http', fmt(me.bare.requestsPerSecond), fmtP99(me.bare.p99Ms)],
      ['ratio gateway/bare', fmt(me.gateway.requestsPerSecond / me.bare.requestsPerSecond, 3), p99Ratio(me.gateway.p99Ms, me.bare.p99Ms)],
      [`its ${me.request.operations} table operations in ${me.request.waves.length} round trips, direct`, fmt(me.rawStorePerSecond), ''],
      ['ratio gateway/direct store', fmt(me.gateway.requestsPerSecond / me.rawStorePerSecond, 3), ''],
    ]);
    console.log(`  (per request: ${me.request.described}; the gateway and the direct store in turns, ${me.slices} runs of ${me.sliceSeconds} s each)`);
    if (me.gateway.non2xx > 0 || me.gateway.errors > 0) console.log(`  (gateway: ${me.gateway.non2xx} non-2xx answers, ${me.gateway.errors} errors)`);
  }

  if (selected('ledger')) {
    const store = await startTableOnly('bench-ledger');
    try {
      const ledger = await benchLedger({ durationMs: seconds * 1000 });
      table('Ledger transfers (6-item TransactWriteItems) vs raw TransactWriteItems of the same items, same DynamoDB Local', [
        ['', 'per second', ''],
        ['ledger transfers', fmt(ledger.transfersPerSecond, 1), ''],
        ['raw TransactWriteItems', fmt(ledger.rawPerSecond, 1), ''],
        ['ratio ledger/raw', fmt(ledger.ratio, 3), ''],
      ]);
    } finally {
      await store.stop();
    }
  }

  if (selected('payments')) {
    const payments = await benchPayments({ seconds, watched: [10, 10_000] });
    table('POST /payments/ through the local HTTP server vs raw TransactWriteItems of the same items', [
      ['', 'per second', 'p99 ms'],
      ['payment creations (HTTP)', fmt(payments.http.requestsPerSecond, 1), fmt(payments.http.p99Ms, 1)],
      ['raw TransactWriteItems', fmt(payments.rawTransactPerSecond, 1), fmt(payments.rawTransactP99Ms, 1)],
      ['ratio HTTP/raw', fmt(payments.http.requestsPerSecond / payments.rawTransactPerSecond, 3), fmt(payments.http.p99Ms / payments.rawTransactP99Ms, 2)],
    ]);
    const r = payments.request;
    console.log(
      `  (per creation: ${r.operations} table operations in ${r.waves.length} round trips: ${r.described}; HTTP and raw in turns, ${payments.slices} runs of ${payments.sliceSeconds} s each, p99 the median of the runs)`,
    );
    if (payments.http.non2xx > 0 || payments.http.errors > 0) console.log(`  (HTTP: ${payments.http.non2xx} non-2xx answers, ${payments.http.errors} errors)`);
    table('Chain scanner: calls and time for one block range by number of watched deposit addresses (TRX: the local TRON node)', [
      ['network, watched addresses', 'calls', 'blocks', 'ms'],
      ...payments.scanner.map((s): [string, string, string, string] => [`${s.network}, ${fmt(s.watched)}`, fmt(s.rpcCalls), fmt(s.blocks), fmt(s.ms, 1)]),
    ]);
  }

  if (selected('webhooks')) {
    const webhookEvents = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1000);
    const webhookRate = process.env.BENCH_WEBHOOK_RATE;
    const hooks = await benchWebhooks({ events: webhookEvents, ...(webhookRate ? { rate: Number(webhookRate) } : {}), isolation: {} });
    table(
      `Webhooks on the local stack (outbox -> stream -> event-router -> SQS -> webhook-delivery -> loopback receiver): ${hooks.rounds} x ${webhookEvents} events committed, then let through, in turns with the baseline`,
      [
        ['', 'deliveries/s', ''],
        ['pipeline', fmt(hooks.deliveriesPerSecond, 1), ''],
        [`its ${hooks.directCalls} table operations per delivery, direct (${hooks.concurrency} workers)`, fmt(hooks.directPerSecond, 1), ''],
        ['ratio pipeline/direct', fmt(hooks.deliveriesPerSecond / hooks.directPerSecond, 3), ''],
      ],
    );
    console.log(`  (table calls per delivery measured in the pipeline: ${fmt(hooks.callsPerDelivery, 2)}, outbox commit left out)`);
    table(`Webhooks: commit-to-receiver at ${fmt(hooks.rate)} events/s (${fmt(hooks.paced)} events), and where the time goes`, [
      ['', 'p50 ms', 'p99 ms'],
      ['commit -> receiver', fmt(hooks.latency.p50, 1), fmt(hooks.latency.p99, 1)],
      ...hooks.stages.map((s): [string, string, string] => [`  ${s.name}`, fmt(s.ms.p50, 1), fmt(s.ms.p99, 1)]),
    ]);
    const iso = hooks.isolation;
    if (!iso) throw new Error('the isolation figure is missing');
    table(
      `Webhooks, tenant isolation (both lanes): tenant A at ${fmt(iso.rate)} events/s (${iso.rounds} x ${fmt(iso.perRun)} events a side), quiet runs in turns with runs where a fresh tenant B commits ${iso.hanging} events to a receiver that never answers`,
      [
        ['', 'p50 ms', 'p99 ms', 'max ms'],
        ['A commit -> receiver, B quiet (baseline)', fmt(iso.quiet.p50, 1), fmt(iso.quiet.p99, 1), fmt(iso.quiet.max, 1)],
        [`A commit -> receiver, B's ${iso.hanging} deliveries hanging`, fmt(iso.hanging100.p50, 1), fmt(iso.hanging100.p99, 1), fmt(iso.hanging100.max, 1)],
        [
          'ratio hanging/quiet (target p99 <= 1.5)',
          fmt(iso.hanging100.p50 / iso.quiet.p50, 2),
          fmt(iso.hanging100.p99 / iso.quiet.p99, 2),
          fmt(iso.hanging100.max / iso.quiet.max, 2),
        ],
        [`A commit -> receiver, B's ${iso.hanging} hanging committed during A's run`, fmt(iso.noisy.p50, 1), fmt(iso.noisy.p99, 1), fmt(iso.noisy.max, 1)],
        ['ratio burst hanging/quiet', fmt(iso.noisy.p50 / iso.quiet.p50, 2), fmt(iso.noisy.p99 / iso.quiet.p99, 2), fmt(iso.noisy.max / iso.quiet.max, 2)],
        [
          `A commit -> receiver, B's ${iso.hanging} answered, committed during A's run (B's load alone)`,
          fmt(iso.busy.p50, 1),
          fmt(iso.busy.p99, 1),
          fmt(iso.busy.max, 1),
        ],
        ['ratio burst hanging/answered', fmt(iso.noisy.p50 / iso.busy.p50, 2), fmt(iso.noisy.p99 / iso.busy.p99, 2), fmt(iso.noisy.max / iso.busy.max, 2)],
      ],
    );
    console.log(`  (B's receiver held ${fmt(iso.bRequests)} requests unanswered; A's deliveries not delivered at the first attempt: ${iso.aRetried})`);
  }

  if (selected('chain-tx')) {
    const count = Number(process.env.BENCH_CHAIN_TX ?? 200);
    // A short run first, discarded: the first run otherwise pays this process's warm-up (JIT, connections).
    await benchChainTx({ count: 50, kmsLatencyMs: 0 });
    const direct = await benchChainTx({ count, kmsLatencyMs: 0 });
    const slow = await benchChainTx({ count, kmsLatencyMs: 20 });
    table(`Withdrawals (ERC-20 transfers) signed through KMS and broadcast to anvil by the chain-tx engine (${count} per run)`, [
      ['', 'per second', 'nonce gaps / duplicates'],
      ['KMS as is', fmt(direct.perSecond, 1), `${direct.nonceGaps} / ${direct.duplicates}`],
      ['KMS + 20 ms per call', fmt(slow.perSecond, 1), `${slow.nonceGaps} / ${slow.duplicates}`],
      ['ratio slow/as is', fmt(slow.perSecond / direct.perSecond, 3), ''],
    ]);
    const batchCount = Number(process.env.BENCH_BATCH_PAYOUTS ?? 1000);
    const b = await benchBatchPayouts({ count: batchCount, kmsLatencyMs: 20 });
    table(`Withdrawals through batch payouts (BatchPayout, 50 a transaction, KMS + 20 ms per call; ${batchCount} withdrawals)`, [
      ['', 'per second', 'nonce gaps / duplicates'],
      ['signed and broadcast by the engine', fmt(b.signedPerSecond, 1), `${b.nonceGaps} / ${b.duplicates}`],
      ['pending to completed (batcher, engine, follower, settlement)', fmt(b.perSecond, 1), ''],
    ]);
    console.log(
      `  (${b.batches} batches, ${b.kmsSigns} KMS signatures; seconds: batcher ${fmt(b.phases.dispatch, 1)}, engine ${fmt(b.phases.engine, 1)}, follow + settle ${fmt(b.phases.settle, 1)})`,
    );
    console.log(
      `  gas: plain ERC-20 transfer ${b.transferGas}; batch of 50 ${b.batchGas} = ${b.gasPerPayout} a payout (${fmt(Number(b.gasPerPayout) / Number(b.transferGas), 3)}x)`,
    );
  }

  if (selected('btc')) {
    const store = await startTableOnly('bench-btc');
    const b = await benchBtcScanner().finally(() => store.stop());
    const [small, large] = [b.rows[0], b.rows[b.rows.length - 1]];
    table('Bitcoin scanner: Esplora API calls of one pass over one new block (the local Bitcoin node, DynamoDB Local), by open BTC payments', [
      ['', 'API calls', 'of which block', 'mempool lookups', 'deposits recorded'],
      ...b.rows.map((r) => [`${fmt(r.payments)} open payments`, fmt(r.calls), fmt(r.blockCalls), fmt(r.mempoolLookups), fmt(r.recorded)]),
      [
        `ratio ${fmt(large?.payments ?? 0)} / ${fmt(small?.payments ?? 0)}`,
        small && large ? fmt(large.calls / small.calls, 2) : '-',
        small && large ? fmt(large.blockCalls / small.blockCalls, 2) : '-',
        small && large && small.mempoolLookups > 0 ? fmt(large.mempoolLookups / small.mempoolLookups, 2) : '-',
        '',
      ],
    ]);
    console.log(
      `  (mempool lookups are bounded at ${fmt(b.budget)} a pass, the longest unchecked payments first; the block costs the same calls whatever the payments)`,
    );
  }

  if (selected('btc-payouts')) {
    const b = await benchBtcPayouts({ payouts: 50 });
    table(
      `Bitcoin payouts: ONE transaction paying ${b.payouts} withdrawals (0.001 BTC each, P2WPKH) from 0.005 BTC deposit coins, vs one withdrawal alone; signed through KMS (local), ${b.feeRate} sat/vB`,
      [
        ['', 'vbytes', 'inputs', 'KMS Sign calls'],
        ['one withdrawal alone (1 coin in, payout + change out)', fmt(b.single.vsize), fmt(b.single.inputs), ''],
        [`batch of ${b.payouts}`, fmt(b.batch.vsize), fmt(b.batch.inputs), fmt(b.batch.kmsSigns)],
        ['batch, per payout', fmt(b.perPayout, 1), '', ''],
        ['ratio per payout / alone (goal <= 0.35)', fmt(b.ratio, 3), '', ''],
        ['KMS Sign calls / inputs (one per input)', fmt(b.batch.kmsSigns / b.batch.inputs, 2), '', ''],
      ],
    );
  }

  if (selected('sweep-gas')) {
    const g = await benchSweepGas();
    const x = (gas: bigint, base: bigint): string => `${fmt(Number(gas) / Number(base), 2)}x`;
    table('Sweeps: gas per deposit, N fresh deposit addresses (test USDT) deployed and flushed by ONE deployAndFlush, vs plain ERC-20 transfers (same anvil)', [
      ['', 'gas', 'per deposit', 'ratio to treasury', 'ratio new holder'],
      ...g.sweeps.map((s) => [
        `deployAndFlush of ${s.deposits}`,
        fmt(Number(s.gas)),
        fmt(Number(s.perDeposit)),
        x(s.perDeposit, g.transferToTreasuryGas),
        x(s.perDeposit, g.transferToNewHolderGas),
      ]),
      ['plain transfer: whole balance to the treasury (what a flush moves)', fmt(Number(g.transferToTreasuryGas)), '', '1.00x', ''],
      ['plain transfer to a new holder', fmt(Number(g.transferToNewHolderGas)), '', '', '1.00x'],
    ]);
  }

  if (selected('collector-gas')) {
    const g = await benchCollectorGas({ charges: 50 });
    const x = (gas: bigint, base: bigint): string => `${fmt(Number(gas) / Number(base), 3)}x`;
    table(
      `Subscription pulls: gas per charge, ${g.charges} approved subscribers charged by ONE SubscriptionCollector chargeBatch (test USDT, finite allowances), vs plain ERC-20 transfers (same anvil)`,
      [
        ['', 'gas', 'per charge', 'ratio to payee', 'ratio new holder'],
        [
          `chargeBatch of ${g.charges}`,
          fmt(Number(g.batchGas)),
          fmt(Number(g.perCharge)),
          x(g.perCharge, g.transferToPayeeGas),
          x(g.perCharge, g.transferToNewHolderGas),
        ],
        ['plain transfer to the payee, a holder (a pushed payment; goal <= 0.7x)', fmt(Number(g.transferToPayeeGas)), '', '1.000x', ''],
        ['plain transfer to a new holder', fmt(Number(g.transferToNewHolderGas)), '', '', '1.000x'],
      ],
    );
  }

  if (selected('transactions')) {
    const store = await startTableOnly('bench-transactions');
    try {
      const records = Number(process.env.BENCH_HISTORY_RECORDS ?? 5000);
      const h = await benchHistory({ records, runs: 25 });
      table(
        `Transaction history: one page of 50 (newest first) of a tenant with ${fmt(records)} movements vs the raw Query of the same items, same DynamoDB Local`,
        [
          ['', 'ms per page', 'raw Query ms', 'ratio'],
          ['GET /transactions/transactions/ page (store)', fmt(h.pageMs, 2), fmt(h.rawPageMs, 2), fmt(h.pageMs / h.rawPageMs, 2)],
          ['type=withdrawal (a fifth match)', fmt(h.filteredPageMs, 2), fmt(h.rawFilteredPageMs, 2), fmt(h.filteredPageMs / h.rawFilteredPageMs, 2)],
        ],
      );
      table(
        `Transaction export: the whole history (${fmt(records)} rows, ${fmt(h.exportBytes / 1024)} KiB of CSV) to the local S3 server vs raw Queries of the same items`,
        [
          ['', 'rows/s', ''],
          ['export worker (page, CSV, multipart upload)', fmt(h.exportRowsPerSecond), ''],
          ['raw Query, 500 per page (nothing written)', fmt(h.rawQueryRowsPerSecond), ''],
          ['ratio export/raw', fmt(h.exportRowsPerSecond / h.rawQueryRowsPerSecond, 3), ''],
        ],
      );
    } finally {
      await store.stop();
    }
  }

  if (selected('payment-lifecycle')) await printPaymentLifecycle();

  if (selected('cost'))
    printCost(
      await benchCost({
        payments: Number(process.env.BENCH_COST_PAYMENTS ?? 30),
        ...(process.env.BENCH_COST_DEPOSITS_PER_BLOCK ? { depositsPerBlock: Number(process.env.BENCH_COST_DEPOSITS_PER_BLOCK) } : {}),
      }),
    );

  if (selected('checkout')) {
    const c = await benchCheckout(seconds);
    const p = c.page;
    table('Checkout page GET <checkout_url> through the local HTTP server vs a bare Node HTTP server (identical bytes and headers)', [
      ['', 'median ms', 'p99 ms'],
      ['gateway (one request at a time, fetch + body)', fmt(p.gateway.medianMs, 2), fmt(p.gateway.p99Ms, 2)],
      ['bare node:http', fmt(p.bare.medianMs, 2), fmt(p.bare.p99Ms, 2)],
      ['ratio gateway/bare', fmt(p.gateway.medianMs / p.bare.medianMs, 1), fmt(p.gateway.p99Ms / p.bare.p99Ms, 1)],
      ['in process: table reads (readCheckout)', fmt(p.storeUs / 1000, 2), ''],
      ['in process: QR code (qrDataUrl)', fmt(p.qrUs / 1000, 2), ''],
      ['in process: HTML (checkoutPage)', fmt(p.renderUs / 1000, 2), ''],
      ['in process: QR code + HTML', fmt(p.qrRenderUs / 1000, 2), ''],
      ['in process: whole handler (serveCheckout)', fmt(p.handlerUs / 1000, 2), ''],
    ]);
    const calls = Object.entries(p.tableCalls)
      .map(([name, n]) => `${name} ${fmt(n, 1)}`)
      .join(', ');
    console.log(`  (table calls per page request: ${calls || 'none'}; in-process rows: medians of 500 sequential calls)`);
    console.log(
      `  (page ${fmt(p.bytes)} bytes, ${fmt(p.gzipBytes)} gzipped (${fmt((100 * p.gzipBytes) / p.bytes, 1)} %); of them the QR data URL ${fmt(p.qrBytes)} bytes, which follows the deposit address)`,
    );
    const s = c.status;
    table(`Checkout status GET <checkout_url>/status (${fmt(s.bytes)} bytes of JSON) through the local HTTP server vs a bare Node HTTP server`, [
      ['', 'req/s', 'p99 ms'],
      ['gateway', fmt(s.gateway.requestsPerSecond), fmt(s.gateway.p99Ms, 1)],
      ['bare node:http', fmt(s.bare.requestsPerSecond), fmtP99(s.bare.p99Ms)],
      ['ratio gateway/bare', fmt(s.gateway.requestsPerSecond / s.bare.requestsPerSecond, 3), p99Ratio(s.gateway.p99Ms, s.bare.p99Ms)],
      ['its table reads (readCheckout), direct', fmt(s.rawStorePerSecond), ''],
      ['ratio gateway/direct store', fmt(s.gateway.requestsPerSecond / s.rawStorePerSecond, 3), ''],
      ['QR codes alone, one at a time (1 / in-process median)', fmt(1e6 / p.qrUs), ''],
    ]);
    if (s.gateway.non2xx > 0 || s.gateway.errors > 0) console.log(`  (gateway: ${s.gateway.non2xx} non-2xx answers, ${s.gateway.errors} errors)`);
  }

  if (selected('cold-start')) {
    const c = await benchColdStart();
    table(
      `Cold start: each API Lambda's index.js as CDK bundles it, median load (require, as the runtime loads it) of ${c.rounds} fresh Node processes (Lambda environment) vs importing @aws-sdk/lib-dynamodb + client-dynamodb alone (goal: each ratio <= ${fmt(COLD_START_GOAL, 2)})`,
      [
        ['', 'bytes', 'budget', 'load ms', 'ratio', 'CPU ms', 'CPU ratio'],
        ['baseline: lib-dynamodb + client-dynamodb, import()', '', '', fmt(c.baselineMs, 1), '1.00', fmt(c.baselineCpuMs, 1), '1.00'],
        [
          'the same two by require',
          '',
          '',
          fmt(c.requiredMs, 1),
          fmt(c.requiredMs / c.baselineMs, 2),
          fmt(c.requiredCpuMs, 1),
          fmt(c.requiredCpuMs / c.baselineCpuMs, 2),
        ],
        ...c.rows.map((r) => [
          r.name,
          fmt(r.bytes),
          fmt(r.budget),
          fmt(r.importMs, 1),
          fmt(r.importMs / c.baselineMs, 2),
          fmt(r.cpuMs, 1),
          fmt(r.cpuMs / c.baselineCpuMs, 2),
        ]),
      ],
    );
    console.log(
      `  (Node ${c.node}, ${c.cpus} CPUs; the load alone, from just before require() (the baseline: import()) to its return, and the process's CPU time meanwhile; a first round discarded)`,
    );
    const v = coldStartVerdict(c);
    const own = (r: { importMs: number; cpuMs: number }) => `${fmt(r.importMs - c.requiredMs, 1)} ms (CPU ${fmt(r.cpuMs - c.requiredCpuMs, 1)} ms)`;
    const largest = c.rows.reduce((a, r) => (r.cpuMs - c.requiredCpuMs > a.cpuMs - c.requiredCpuMs ? r : a));
    console.log(
      `  (beyond the SDK packages required, the bundles' own code: up to ${own(largest)} (${largest.name}); slowest against the two required: ${fmt(Math.max(...c.rows.map((r) => r.importMs / c.requiredMs)), 2)} times, CPU ${fmt(Math.max(...c.rows.map((r) => r.cpuMs / c.requiredCpuMs)), 2)} times)`,
    );
    console.log(
      `cold start: slowest import ${fmt(v.slowest.ratio, 2)} times the baseline (${v.slowest.name}), CPU ${fmt(v.slowestCpu.ratio, 2)} times (${v.slowestCpu.name}); goal <= ${fmt(COLD_START_GOAL, 2)}: ${v.met ? 'met' : 'NOT met'}`,
    );
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
