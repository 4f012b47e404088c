/**
 * Prices what bench/cost.ts counted (bench/prices.ts) and prints the breakdown and the two cost lines.
 */
import type { CostMeasurement, IdleWorker, Tally } from './cost-tally.js';
import * as P from './prices.js';
import { queueTriggerOf, WORKER_FUNCTIONS } from '../infra/definition.js';

interface Row {
  readonly item: string;
  readonly count: number;
  readonly unit: string;
  readonly usd: number;
  /** Not counted on the stack: taken from a documented behaviour or a format (said in the table). */
  readonly estimated?: boolean;
}

const GB = 1024 ** 3;
/** The workers an SQS event source mapping invokes (infra/definition.ts): one receive that returned a batch each. */
const QUEUE_TRIGGERED = new Set(WORKER_FUNCTIONS.filter((w) => queueTriggerOf(w.trigger) !== null).map((w) => w.name));
const ASYMMETRIC = new Set(['Sign', 'GetPublicKey', 'Verify']);
const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const usd = (n: number): string => (n === 0 ? '0' : n < 0.0001 ? n.toExponential(2) : fmt(n, n < 1 ? 4 : 2));

function print(title: string, rows: readonly Row[]): void {
  const cells = [
    ['', 'count', 'unit price', 'USD'],
    ...rows.map((r) => [`${r.item}${r.estimated ? ' (est.)' : ''}`, fmt(r.count, r.count < 10 ? 2 : 0), r.unit, usd(r.usd)]),
  ];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...cells.map((c) => (c[i] ?? '').length)));
  console.log(`\n${title}`);
  for (const c of cells) console.log(`  ${c.map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join('  ')}`);
}

const total = (rows: readonly Row[]): number => rows.reduce((s, r) => s + r.usd, 0);

/** What dominates: the largest kinds of cost (rows summed by kind, whatever function they are of), by share of the total. */
function dominates(rows: readonly Row[]): string {
  const sum = total(rows);
  const kinds = new Map<string, number>();
  for (const r of rows) {
    const kind = r.item
      .replace(/^[\w-]+: (?=Lambda|X-Ray|DynamoDB|SQS|KMS|CloudWatch)/, '')
      .replace(/^Lambda GB-s.*/, 'Lambda duration')
      .replace(/ \(.*$/, '');
    kinds.set(kind, (kinds.get(kind) ?? 0) + r.usd);
  }
  return [...kinds]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .filter(([, v]) => v > 0)
    .map(([kind, v]) => `${kind} ${fmt((100 * v) / sum, 0)} %`)
    .join(', ');
}

/** What share of the invocations X-Ray traces, and how the table names it. */
interface Traced {
  readonly share: number;
  readonly label: string;
}

/**
 * The rows of one tally's requests, units and logs, each count multiplied by `k`; the write units DynamoDB Local
 * answered, or `billed` per `k` (bench/write-billing.ts).
 */
function serviceRows(
  t: Tally,
  k: number,
  memoryMbOf: (name: string) => number,
  logMonths: number,
  traced: Traced,
  billed?: { readonly table: number; readonly indexes: number },
): Row[] {
  const rows: Row[] = [];
  const invocations = Object.values(t.invocations).reduce((n, v) => n + v.count, 0) * k;
  rows.push({ item: 'Lambda requests', count: invocations, unit: '$0.20/M', usd: invocations * P.LAMBDA_PER_REQUEST });
  for (const [name, v] of Object.entries(t.invocations)) {
    const gbSeconds = ((v.billedMs / 1000) * memoryMbOf(name)) / 1024;
    rows.push({
      item: `Lambda GB-s: ${name} (${memoryMbOf(name)} MB arm64)`,
      count: gbSeconds * k,
      unit: '$0.0000133334/GB-s',
      usd: gbSeconds * k * P.LAMBDA_ARM64_PER_GB_SECOND,
    });
  }
  const traces = invocations * traced.share;
  rows.push({ item: `X-Ray traces (${traced.label})`, count: traces, unit: '$5.00/M', usd: traces * P.XRAY_PER_TRACE });
  rows.push({ item: 'DynamoDB read request units', count: t.units.read * k, unit: '$0.125/M', usd: t.units.read * k * P.DYNAMODB_PER_RRU });
  if (billed) {
    rows.push({ item: 'DynamoDB write request units: table', count: billed.table * k, unit: '$0.625/M', usd: billed.table * k * P.DYNAMODB_PER_WRU });
    rows.push({ item: 'DynamoDB write request units: indexes', count: billed.indexes * k, unit: '$0.625/M', usd: billed.indexes * k * P.DYNAMODB_PER_WRU });
  } else rows.push({ item: 'DynamoDB write request units', count: t.units.write * k, unit: '$0.625/M', usd: t.units.write * k * P.DYNAMODB_PER_WRU });
  const sqs = Object.entries(t.requests).filter(([key]) => key.startsWith('sqs ') && key !== 'sqs ReceiveMessage');
  const sqsCount = sqs.reduce((n, [, v]) => n + v, 0) * k;
  if (sqsCount > 0)
    rows.push({ item: `SQS requests (${sqs.map(([key]) => key.slice(4)).join(', ')})`, count: sqsCount, unit: '$0.40/M', usd: sqsCount * P.SQS_PER_REQUEST });
  for (const [key, v] of Object.entries(t.requests).filter(([key]) => key.startsWith('kms '))) {
    const op = key.slice(4);
    const asymmetric = ASYMMETRIC.has(op);
    const price = asymmetric ? P.KMS_PER_ASYMMETRIC_REQUEST : P.KMS_PER_SYMMETRIC_REQUEST;
    rows.push({ item: `KMS ${op}${asymmetric ? ' (asymmetric)' : ''}`, count: v * k, unit: asymmetric ? '$0.15/10k' : '$0.03/10k', usd: v * k * price });
  }
  for (const [key, v] of Object.entries(t.requests).filter(([key]) => key.startsWith('s3 '))) {
    const put = key !== 's3 GET' && key !== 's3 HEAD';
    rows.push({ item: `S3 ${key.slice(3)}`, count: v * k, unit: put ? '$0.005/1k' : '$0.0004/1k', usd: v * k * (put ? P.S3_PER_PUT : P.S3_PER_GET) });
  }
  const printed = t.logBytes * k;
  rows.push({ item: 'CloudWatch Logs: bytes the handlers print', count: printed, unit: '$0.50/GB', usd: (printed / GB) * P.LOGS_PER_GB_INGESTED });
  const platform = invocations * P.LAMBDA_PLATFORM_LOG_BYTES;
  rows.push({
    item: 'CloudWatch Logs: START/END/REPORT bytes',
    count: platform,
    unit: '$0.50/GB',
    usd: (platform / GB) * P.LOGS_PER_GB_INGESTED,
    estimated: true,
  });
  rows.push({
    item: `CloudWatch Logs storage (${logMonths} month kept)`,
    count: (printed + platform) / GB,
    unit: '$0.03/GB-mo',
    usd: ((printed + platform) / GB) * logMonths * P.LOGS_PER_GB_MONTH_STORED,
  });
  return rows;
}

/** An idle worker's tally for a month of once-a-minute invocations (loopers: per second measured, over their billed seconds). */
function monthOf(w: IdleWorker): { tally: Tally; k: number } {
  if (!w.loops) return { tally: w.perInvocation, k: P.MINUTES_PER_MONTH };
  // Per measured second, taken over the billed seconds; one invocation a minute, billed whole.
  const perSecond = w.billedSeconds / Math.max(w.measuredSeconds, 1e-9);
  const t = w.perInvocation;
  const tally: Tally = {
    ...t,
    requests: Object.fromEntries(Object.entries(t.requests).map(([key, v]) => [key, v * perSecond])),
    invocations: Object.fromEntries(Object.entries(t.invocations).map(([key, v]) => [key, { count: v.count, billedMs: w.billedSeconds * 1000 }])),
    units: { read: t.units.read * perSecond, write: t.units.write * perSecond },
    logBytes: t.logBytes * perSecond,
  };
  return { tally, k: P.MINUTES_PER_MONTH };
}

/** Payments an hour of the steady volume the provisioned comparison assumes (the sweeps' batching assumes it too). */
export const STEADY_PAYMENTS_PER_HOUR = 1000;

/**
 * The same DynamoDB units on provisioned capacity with auto scaling instead of on-demand, at a steady
 * `STEADY_PAYMENTS_PER_HOUR`: capacity at the target utilisation above the units' hourly average (table and indexes
 * together; each gets its share), at least one read and one write unit on the table and on each index when idle, and
 * the two alarms each target-tracking policy creates per scaled dimension. A comparison printed beside the figures,
 * not the figure the goals are held to: bursts above the provisioned rate are throttled, where on-demand absorbs them.
 */
function provisionedInstead(
  perPayment: { readonly write: number; readonly read: number },
  onDemand: { readonly variableDynamo: number; readonly fixedDynamo: number },
  indexes: number,
): { variable: number; fixedDelta: number; alarms: number } {
  const hourly = (units: number, price: number) => ((units * STEADY_PAYMENTS_PER_HOUR) / 3600 / P.DYNAMODB_TARGET_UTILISATION) * price;
  const perThousand =
    ((hourly(perPayment.write, P.DYNAMODB_PER_WCU_HOUR) + hourly(perPayment.read, P.DYNAMODB_PER_RCU_HOUR)) * 1000) / STEADY_PAYMENTS_PER_HOUR;
  const resources = 1 + indexes;
  const minimum = resources * (P.DYNAMODB_PER_WCU_HOUR + P.DYNAMODB_PER_RCU_HOUR) * 24 * 30;
  const alarms = resources * 2 * P.ALARMS_PER_SCALED_DIMENSION;
  return {
    variable: perThousand - onDemand.variableDynamo,
    fixedDelta: minimum + alarms * P.ALARM_PER_MONTH - onDemand.fixedDynamo,
    alarms,
  };
}

export function printCost(m: CostMeasurement): { variableUsd: number; fixedUsd: number } {
  const memory = new Map(m.inventory.functions.map((f) => [f.name, f.memoryMb]));
  const memoryMbOf = (name: string): number => memory.get(name.split(' ')[0] ?? name) ?? 1024;
  const arm = m.inventory.functions.every((f) => f.architecture === 'arm64');
  if (!arm) throw new Error('a function is not arm64: bench/prices.ts prices arm64 only');

  /* ---------- variable ---------- */
  const k = 1000 / m.payments;
  const t = m.lifecycle;
  const rule = m.inventory.sampling;
  const pct = (x: number): string => `${fmt(100 * x, x < 0.01 ? 1 : 0)} %`;
  // Per payment, what traffic adds is sampled at the rule's fixed rate: the reservoir's traces a second are taken by
  // whatever runs first in each second (idle, the schedules; busy, anything), a bounded cost priced below.
  const variableTraced: Traced = rule
    ? { share: rule.fixedRate, label: `sampled at ${pct(rule.fixedRate)}, rule ${rule.ruleName}` }
    : { share: 1, label: 'one per invocation: no sampling rule in the stack' };
  const receives = Object.entries(t.invocations)
    .filter(([name]) => QUEUE_TRIGGERED.has(name))
    .reduce((n, [, v]) => n + v.count, 0);
  const variable: Row[] = [
    { item: 'API Gateway HTTP API requests', count: t.apiRequests * k, unit: '$1.00/M', usd: t.apiRequests * k * P.HTTP_API_PER_REQUEST },
    ...serviceRows(
      t,
      k,
      memoryMbOf,
      1,
      variableTraced,
      m.billedWrites && { table: m.billedWrites.table * m.payments, indexes: m.billedWrites.indexes * m.payments },
    ),
    {
      item: 'SQS ReceiveMessage that returned a batch (one per queue-triggered invocation)',
      count: receives * k,
      unit: '$0.40/M',
      usd: receives * k * P.SQS_PER_REQUEST,
    },
    {
      item: 'CloudWatch Logs: HTTP API access log lines',
      count: t.apiRequests * k * P.ACCESS_LOG_BYTES,
      unit: '$0.50/GB',
      usd: ((t.apiRequests * k * P.ACCESS_LOG_BYTES) / GB) * (P.LOGS_PER_GB_INGESTED + 12 * P.LOGS_PER_GB_MONTH_STORED),
      estimated: true,
    },
    { item: 'EventBridge custom events (the code puts none)', count: 0, unit: '$1.00/M', usd: 0 },
  ];
  print(`Cost: variable, per 1,000 completed payments (${m.payments} lifecycles counted on the local stack, scaled)`, variable);
  const x = total(variable);
  const per = (name: string): string => fmt((t.invocations[name]?.count ?? 0) / m.payments, 1);
  console.log(
    `  (per payment: invocations payments ${per('payments')}, event-router ${per('event-router')}, webhook-delivery ${per('webhook-delivery')}, chain-tx ${per('chain-tx')}, chain-results ${per('chain-results')}, chain-scanner woken ${per('chain-scanner')}, chain-tx-follower woken ${per('chain-tx-follower')}; ${fmt(t.tableCalls / m.payments, 1)} table calls)`,
  );
  if (m.sweeps) {
    const perSweep = m.payments / Math.max(1, m.sweeps.count);
    const signs = (t.requests['kms Sign'] ?? 0) / Math.max(1, m.sweeps.count);
    console.log(
      `  (sweeps as in production, PAYMENT_SWEEPS=engine: ${m.sweeps.count} chain transactions for ${m.payments} payments, ${fmt(perSweep, 1)} payments a sweep, ${fmt(signs, 1)} KMS Sign a sweep; assumed volume: ${m.sweeps.assumption}; at fewer than one deposit a block each sweep takes one payment, its KMS Sign alone USD ${fmt(1000 * P.KMS_PER_ASYMMETRIC_REQUEST, 4)} per 1,000)`,
    );
  }
  if (m.billedWrites) {
    const b = m.billedWrites;
    const kinds = Object.entries(b.byKind).sort((x, y) => y[1].table + y[1].indexes - (x[1].table + x[1].indexes));
    console.log(
      `  (write units per payment as billed, item by item from the images around each write, on ${b.payments} lifecycles of their own: ${fmt(b.table + b.indexes, 1)}, table ${fmt(b.table, 1)} + indexes ${fmt(b.indexes, 1)}; by item, table+indexes: ${kinds
        .map(([kind, u]) => `${kind} ${fmt(u.table, 1)}${u.indexes > 0 ? `+${fmt(u.indexes, 1)}` : ''}`)
        .join(', ')}; DynamoDB Local answered ${fmt(t.units.write / m.payments, 1)} a payment, a transaction as if one item)`,
    );
  }
  for (const w of m.eventMemory ?? [])
    console.log(
      `  (${w.name}: peak resident set ${fmt(w.peakRssMb)} MB, heap used ${fmt(w.heapUsedMb)} MB replaying its largest event (${fmt(w.eventBytes)} bytes${w.failures > 0 ? `, ${w.failures} of its records failed` : ''}), its bundle alone in a Node ${process.versions.node.split('.')[0]} process; deployed at ${memoryMbOf(w.name)} MB)`,
    );
  console.log(
    `  (not counted: the OAuth token (one an hour per merchant); ${m.sweeps ? "the follower's passes beyond those the bench runs while a sweep is in flight (its looping minute is in the busy ceiling below)" : "the sweep's path in production (PAYMENT_SWEEPS=engine)"}; the payments Lambda timed as the whole HTTP round trip, an upper bound)`,
  );

  /* ---------- fixed ---------- */
  const fixed: Row[] = [];
  // Idle, the scheduled runs' invocations a second against the rule: the reservoir takes up to its traces a second,
  // the fixed rate a share of the rest.
  const idlePerSecond = m.idle.reduce((n, w) => n + Object.values(monthOf(w).tally.invocations).reduce((c, v) => c + v.count, 0), 0) / 60;
  const idleTraced: Traced = rule
    ? {
        share:
          idlePerSecond === 0
            ? 0
            : (Math.min(idlePerSecond, rule.reservoirPerSecond) + rule.fixedRate * Math.max(0, idlePerSecond - rule.reservoirPerSecond)) / idlePerSecond,
        label: `${fmt(idlePerSecond, 2)} invocations/s idle within the reservoir of ${rule.reservoirPerSecond}/s`,
      }
    : { share: 1, label: 'one per invocation: no sampling rule in the stack' };
  for (const w of m.idle) {
    const { tally, k: n } = monthOf(w);
    const rows = serviceRows(tally, n, memoryMbOf, 1, idleTraced).filter((r) => r.count > 0);
    for (const r of rows) fixed.push({ ...r, item: `${w.name}: ${r.item.replace(/^Lambda GB-s: [^(]*/, 'Lambda GB-s ')}` });
  }
  const idleReceives = m.inventory.sqsMappings * P.SQS_IDLE_RECEIVES_PER_MAPPING_MONTH;
  fixed.push({
    item: `SQS idle long polls of ${m.inventory.sqsMappings} queue event source mappings`,
    count: idleReceives,
    unit: '$0.40/M',
    usd: idleReceives * P.SQS_PER_REQUEST,
    estimated: true,
  });
  fixed.push({ item: 'KMS keys (stack)', count: m.inventory.kmsKeys, unit: '$1/key-mo', usd: m.inventory.kmsKeys * P.KMS_PER_KEY_MONTH });
  fixed.push({ item: 'CloudWatch alarms', count: m.inventory.alarms, unit: '$0.10/mo', usd: m.inventory.alarms * P.ALARM_PER_MONTH });
  const paidDashboards = Math.max(0, m.inventory.dashboards - P.FREE_DASHBOARDS);
  fixed.push({
    item: `CloudWatch dashboards (${m.inventory.dashboards}; first ${P.FREE_DASHBOARDS} of the account free)`,
    count: m.inventory.dashboards,
    unit: '$3/mo',
    usd: paidDashboards * P.DASHBOARD_PER_MONTH,
  });
  const metrics = new Set([...m.lifecycle.metrics, ...m.idle.flatMap((w) => [...w.perInvocation.metrics])]);
  fixed.push({ item: 'Custom metrics (EMF) the runs printed', count: metrics.size, unit: '$0.30/mo', usd: metrics.size * P.CUSTOM_METRIC_PER_MONTH });
  const metricLines = (set: ReadonlySet<string>): string => {
    const byName = new Map<string, string[]>();
    for (const m of set) {
      const [namespace = '', name = '', dims = ''] = m.split(' ');
      const key = `${namespace} ${name}`;
      byName.set(key, [...(byName.get(key) ?? []), dims === '' ? '(none)' : dims]);
    }
    return [...byName]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, dims]) => `${key} [${dims.sort().join('; ')}]`)
      .join(', ');
  };
  fixed.push({
    item: `EventBridge schedules (${m.inventory.scheduleRules} rules, default bus)`,
    count: m.inventory.scheduleRules * P.MINUTES_PER_MONTH,
    unit: 'free',
    usd: 0,
  });
  print('Cost: fixed, a 30-day month idle (schedules measured idle on the local stack, scaled to a run a minute)', fixed);
  const y = total(fixed);
  const failed = m.idle.filter((w) => w.failed !== null);
  const early = m.idle.filter((i) => i.returnedEarly);
  if (early.length > 0)
    console.log(
      `  (nothing to watch, one pass and out instead of a loop: ${early.map((w) => `${w.name} ${fmt(w.measuredSeconds, 2)} s`).join(', ')}; billed as measured, once a minute)`,
    );
  for (const w of failed) console.log(`  (${w.name}: its idle run failed (${w.failed}); its figures are those of the failing run)`);
  const loopers = m.idle.filter((w) => w.loops);
  const loopNotes = loopers.map(
    (w) =>
      `${w.name} loops for ${fmt(w.billedSeconds)} s of every minute: measured ${fmt(w.measuredSeconds, 1)} s idle, its units, requests and logs taken per second`,
  );
  console.log(`  (${[...loopNotes, `each worker: a cold run left out, then the mean of up to 3 warm idle runs`].join('; ')})`);
  for (const w of m.idle.filter((i) => i.memory !== null)) {
    const mem = w.memory as NonNullable<IdleWorker['memory']>;
    console.log(
      `  (${w.name}: peak resident set ${fmt(mem.peakRssMb)} MB, heap used ${fmt(mem.heapUsedMb)} MB after an idle run, its bundle alone in a Node ${process.versions.node.split('.')[0]} process; deployed at ${memoryMbOf(w.name)} MB)`,
    );
  }
  console.log(
    `  (stack synthesised: ${m.inventory.functions.length} functions, all arm64 at ${[...new Set(m.inventory.functions.map((f) => f.memoryMb))].join('/')} MB, ${m.inventory.functions.filter((f) => f.tracing).length} traced; ${m.inventory.alarms} alarms; ${m.inventory.kmsKeys} KMS keys; ${m.inventory.queues} queues; ${m.inventory.logGroups} log groups)`,
  );

  const idleMetrics = new Set(m.idle.flatMap((w) => [...w.perInvocation.metrics]));
  console.log(`  (custom metrics of the idle runs, ${idleMetrics.size}: ${metricLines(idleMetrics)})`);
  const lifecycleOnly = new Set([...m.lifecycle.metrics].filter((x) => !idleMetrics.has(x)));
  console.log(`  (custom metrics the lifecycles added, ${lifecycleOnly.size}: ${metricLines(lifecycleOnly)})`);
  const fee = 0.005 * 25 * 1000;
  console.log(`\ncost: variable USD ${fmt(x, 4)} per 1,000 completed payments (${dominates(variable)})`);
  console.log(`cost: fixed USD ${fmt(y, 2)} per month idle (${dominates(fixed)})`);
  console.log(`cost: USD ${fmt(x, 4)} is ${fmt((100 * x) / fee, 3)} % of the 0.5 % fee on 1,000 payments of 25 USD (USD ${fmt(fee)})`);
  console.log(
    `cost: per Solana custody account USD ${fmt(P.KMS_PER_KEY_MONTH, 2)} a month (its own KMS key); its share of custody-solana's polling is not measured (the bench opens no custody account)`,
  );
  // While there is work (a payment waiting or open, a chain transaction in flight, a custody SOL address), a looping
  // worker loops its whole budget again: neither idle nor per payment (shared by every payment open meanwhile), a
  // ceiling whatever the volume. Its Lambda duration, at the deployed memory:
  const busy = m.idle.filter((w) => w.loopBudgetSeconds !== null);
  const ceiling = busy.map((w) => ({
    name: w.name,
    usd: ((w.loopBudgetSeconds ?? 0) * memoryMbOf(w.name) * P.MINUTES_PER_MONTH * P.LAMBDA_ARM64_PER_GB_SECOND) / 1024,
  }));
  if (ceiling.length > 0)
    console.log(
      `cost: busy ceiling: while there is work a looping worker loops its minute again, Lambda duration up to USD ${fmt(
        ceiling.reduce((n, c) => n + c.usd, 0),
        2,
      )} a month more (${ceiling.map((c) => `${c.name} ${fmt(c.usd, 2)}`).join(', ')}), whatever the number of payments`,
    );
  if (rule)
    console.log(
      `cost: X-Ray reservoir: ${rule.reservoirPerSecond} trace/s beyond the idle runs' is taken by traffic, at most USD ${fmt(rule.reservoirPerSecond * 86_400 * 30 * P.XRAY_PER_TRACE, 2)} a month whatever the volume (rule ${rule.ruleName}: ${rule.reservoirPerSecond}/s, then ${pct(rule.fixedRate)})`,
    );
  console.log(`cost: goals x <= 0.05: ${x <= 0.05 ? 'met' : 'NOT met'}; y <= 15: ${y <= 15 ? 'met' : 'NOT met'}`);
  const dynamo = (rows: readonly Row[]) => rows.filter((r) => /DynamoDB (read|write) request units/.test(r.item)).reduce((n, r) => n + r.usd, 0);
  const writesPerPayment = m.billedWrites ? m.billedWrites.table + m.billedWrites.indexes : t.units.write / m.payments;
  const alt = provisionedInstead(
    { write: writesPerPayment, read: t.units.read / m.payments },
    { variableDynamo: dynamo(variable), fixedDynamo: dynamo(fixed) },
    m.inventory.tableIndexes,
  );
  console.log(
    `cost: on provisioned capacity instead of on-demand (auto scaling at ${pct(P.DYNAMODB_TARGET_UTILISATION)} of a steady ${fmt(STEADY_PAYMENTS_PER_HOUR)} payments an hour, 1 unit a table and index at least, ${alt.alarms} more alarms): variable USD ${fmt(x + alt.variable, 4)}, fixed USD ${fmt(y + alt.fixedDelta, 2)} (a comparison, not the figures above: bursts beyond the capacity are throttled)`,
  );
  console.log(
    '  (excluded: chain RPC providers and gas; DynamoDB storage, backups (PITR) and stream reads by Lambda (free); data transfer; free tiers not applied)',
  );
  console.log(`  (${fmt(m.elapsedSeconds, 0)} s)`);
  return { variableUsd: x, fixedUsd: y };
}
