/**
 * `npm run bench`: every figure beside a baseline measured in the same run, and their ratio.
 * BENCH_SECONDS sets the length of each run (default 10); BENCH_WEBHOOK_EVENTS the number of webhook
 * events (default 1000); BENCH_CHAIN_TX the chain transactions signed and broadcast per configuration
 * (default 200).
 */
import { startTestTable } from '../test/support/dynamodb.js';
import { benchChainTx } from './chain-tx.js';
import { benchLedger } from './ledger.js';
import { benchPayments } from './payments.js';
import { benchUserMe } from './user-me.js';
import { benchWebhooks } from './webhooks.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function table(title: string, rows: [string, string, string][]): void {
  console.log(`\n${title}`);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  for (const r of rows) console.log(`  ${r[0].padEnd(widths[0] ?? 0)}  ${r[1].padStart(widths[1] ?? 0)}  ${r[2].padStart(widths[2] ?? 0)}`);
}

async function main(): Promise<void> {
  console.log(`Benchmarks (${seconds} s per HTTP run, 10 connections, load generator in its own process)`);

  const me = await benchUserMe(seconds);
  table('GET /user/me/ through the local HTTP server vs a bare Node HTTP server (same body size)', [
    ['', 'req/s', 'p99 ms'],
    ['gateway', fmt(me.gateway.requestsPerSecond), fmt(me.gateway.p99Ms, 1)],
    ['bare node:http', fmt(me.bare.requestsPerSecond), fmt(me.bare.p99Ms, 1)],
    ['ratio gateway/bare', fmt(me.gateway.requestsPerSecond / me.bare.requestsPerSecond, 3), fmt(me.gateway.p99Ms / Math.max(me.bare.p99Ms, 0.001), 1)],
    ['its 4 table operations, direct', fmt(me.rawStorePerSecond), ''],
    ['ratio gateway/direct store', fmt(me.gateway.requestsPerSecond / me.rawStorePerSecond, 3), ''],
  ]);
  if (me.gateway.non2xx > 0 || me.gateway.errors > 0) console.log(`  (gateway: ${me.gateway.non2xx} non-2xx answers, ${me.gateway.errors} errors)`);

  const store = await startTestTable('bench-ledger');
  try {
    const ledger = await benchLedger({ durationMs: seconds * 1000 });
    table('Ledger transfers (5-item TransactWriteItems) vs raw TransactWriteItems of the same items, same DynamoDB Local', [
      ['', 'per second', ''],
      ['ledger transfers', fmt(ledger.transfersPerSecond, 1), ''],
      ['raw TransactWriteItems', fmt(ledger.rawPerSecond, 1), ''],
      ['ratio ledger/raw', fmt(ledger.ratio, 3), ''],
    ]);
  } finally {
    await store.stop();
  }

  const payments = await benchPayments({ seconds, watched: [10, 10_000] });
  table('POST /payments/ through the local HTTP server vs raw TransactWriteItems of the same items', [
    ['', 'per second', 'p99 ms'],
    ['payment creations (HTTP)', fmt(payments.http.requestsPerSecond, 1), fmt(payments.http.p99Ms, 1)],
    ['raw TransactWriteItems', fmt(payments.rawTransactPerSecond, 1), ''],
    ['ratio HTTP/raw', fmt(payments.http.requestsPerSecond / payments.rawTransactPerSecond, 3), ''],
  ]);
  table('Chain scanner: RPC calls for one block range by number of watched deposit addresses', [
    ['watched addresses', 'RPC calls', 'blocks'],
    ...payments.scanner.map((s): [string, string, string] => [fmt(s.watched), fmt(s.rpcCalls), fmt(s.blocks)]),
  ]);

  const webhookEvents = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1000);
  const hooks = await benchWebhooks({ events: webhookEvents });
  table(`Webhooks: ${webhookEvents} events committed to the outbox and delivered to a loopback receiver (DynamoDB Local)`, [
    ['', 'deliveries/s', 'p99 ms'],
    ['commit-to-receiver', fmt(hooks.deliveriesPerSecond, 1), fmt(hooks.p99Ms, 1)],
  ]);

  const count = Number(process.env.BENCH_CHAIN_TX ?? 200);
  const direct = await benchChainTx({ count, kmsLatencyMs: 0 });
  const slow = await benchChainTx({ count, kmsLatencyMs: 20 });
  table(`Chain transactions signed through KMS and broadcast to anvil (${count} per run)`, [
    ['', 'per second', 'nonce gaps / duplicates'],
    ['KMS as is', fmt(direct.perSecond, 1), `${direct.nonceGaps} / ${direct.duplicates}`],
    ['KMS + 20 ms per call', fmt(slow.perSecond, 1), `${slow.nonceGaps} / ${slow.duplicates}`],
    ['ratio slow/as is', fmt(slow.perSecond / direct.perSecond, 3), ''],
  ]);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
