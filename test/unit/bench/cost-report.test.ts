import { jest } from '@jest/globals';
import type { CostMeasurement, IdleWorker } from '../../../bench/cost-tally.js';
import { newTally } from '../../../bench/cost-tally.js';
import { printCost } from '../../../bench/cost-report.js';

const tally = newTally;

const idle = (over: Partial<IdleWorker>): IdleWorker => ({
  name: 'monitor',
  perInvocation: tally(),
  runs: 3,
  loops: false,
  returnedEarly: false,
  measuredSeconds: 0,
  billedSeconds: 0,
  failed: null,
  loopBudgetSeconds: null,
  memory: null,
  ...over,
});

const inventory = {
  functions: [
    { name: 'payments', memoryMb: 1024, architecture: 'arm64', tracing: true },
    { name: 'monitor', memoryMb: 512, architecture: 'arm64', tracing: true },
    { name: 'chain-scanner', memoryMb: 1024, architecture: 'arm64', tracing: true },
  ],
  alarms: 10,
  kmsKeys: 2,
  dashboards: 1,
  logGroups: 3,
  queues: 2,
  sqsMappings: 0,
  scheduleRules: 2,
  tableIndexes: 3,
  sampling: null,
};

function run(m: CostMeasurement): { lines: string[]; result: { variableUsd: number; fixedUsd: number } } {
  const lines: string[] = [];
  const spy = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
  try {
    return { lines, result: printCost(m) };
  } finally {
    spy.mockRestore();
  }
}

describe('printCost', () => {
  it('scales the counted lifecycles to 1,000 payments and prices each service', () => {
    // 2 payments: 2 API requests, 2 invocations of 1,000 ms at 1024 MB, 4 write units, 2 asymmetric KMS signs.
    const lifecycle = tally({
      apiRequests: 2,
      invocations: { payments: { count: 2, billedMs: 2_000 } },
      units: { read: 0, write: 4 },
      requests: { 'kms Sign': 2 },
    });
    const { lines, result } = run({ payments: 2, lifecycle, idle: [], inventory, elapsedSeconds: 1 });
    // Per 1,000: 1,000 API requests (0.001), 1,000 Lambda requests (0.0002), 1,000 GB-s (0.0133334),
    // 1,000 traces (0.005), 2,000 WRU (0.00125), 1,000 Sign (0.015), platform log bytes.
    const platformLogs = ((1000 * 448) / 1024 ** 3) * (0.5 + 0.03);
    const accessLogs = ((1000 * 506) / 1024 ** 3) * (0.5 + 12 * 0.03);
    const expected = 0.001 + 0.0002 + 0.0133334 + 0.005 + 0.00125 + 0.015 + platformLogs + accessLogs;
    expect(result.variableUsd).toBeCloseTo(expected, 8);
    expect(lines.map((l) => l.trim())).toContain(
      `cost: variable USD ${expected.toFixed(4)} per 1,000 completed payments (KMS Sign 41 %, Lambda duration 37 %, X-Ray traces 14 %)`,
    );
    expect(lines.some((l) => l.startsWith('cost: USD ') && l.includes('of the 0.5 % fee on 1,000 payments of 25 USD (USD 125)'))).toBe(true);
    // Provisioned instead: 2 write units a payment at 1,000 payments an hour is 0.556 units a second, 0.794 at 70 %,
    // USD 0.000516 an hour for 1,000 payments, in place of the on-demand 0.00125; idle, a read and a write unit on the
    // table and each of its 3 indexes (USD 2.2464 a month) and 16 alarms (1.60).
    const provisioned = expected - 0.00125 + ((2 * 1000) / 3600 / 0.7) * 0.00065;
    const line = lines.find((l) => l.startsWith('cost: on provisioned capacity instead'));
    expect(line).toContain(`variable USD ${provisioned.toFixed(4)}, fixed USD ${(result.fixedUsd + 4 * (0.00065 + 0.00013) * 720 + 1.6).toFixed(2)}`);
    expect(line).toContain('16 more alarms');
  });

  it('bills a looping worker its whole budget every minute and takes its per-second units over it', () => {
    const scanner = idle({
      name: 'chain-scanner',
      loops: true,
      measuredSeconds: 5,
      billedSeconds: 60,
      runs: 1,
      perInvocation: tally({ invocations: { 'chain-scanner': { count: 1, billedMs: 5_000 } }, units: { read: 0, write: 10 } }),
    });
    const { result, lines } = run({ payments: 1, lifecycle: tally(), idle: [scanner], inventory, elapsedSeconds: 1 });
    const minutes = 30 * 24 * 60;
    const lambda = minutes * 60 * 1 * 0.0000133334 + minutes * 0.2e-6 + minutes * 5e-6;
    const writes = 10 * 12 * minutes * 0.625e-6;
    const platformLogs = ((minutes * 448) / 1024 ** 3) * (0.5 + 0.03);
    const fixed = lambda + writes + platformLogs + 2 * 1 + 10 * 0.1;
    expect(result.fixedUsd).toBeCloseTo(fixed, 6);
    expect(lines.some((l) => l.startsWith(`cost: fixed USD ${fixed.toFixed(2)} per month idle (Lambda duration`))).toBe(true);
    expect(lines).toContain('cost: goals x <= 0.05: met; y <= 15: NOT met');
  });

  it("prices traces at the sampling rule's rate per payment, and idle runs within its reservoir as all traced", () => {
    const lifecycle = tally({ apiRequests: 1, invocations: { payments: { count: 10, billedMs: 10 } } });
    const monitor = idle({ perInvocation: tally({ invocations: { monitor: { count: 1, billedMs: 100 } } }) });
    const sampled = { ...inventory, sampling: { ruleName: 'gateway-test', reservoirPerSecond: 1, fixedRate: 0.05 } };
    const { lines } = run({ payments: 1, lifecycle, idle: [monitor], inventory: sampled, elapsedSeconds: 1 });
    const row = (prefix: string): string[] => (lines.find((l) => l.trim().startsWith(prefix)) ?? '').trim().split(/\s{2,}/);
    // 10,000 invocations per 1,000 payments, 5 % traced: 500 traces, USD 0.0025.
    expect(row('X-Ray traces (sampled at 5 %')).toEqual(['X-Ray traces (sampled at 5 %, rule gateway-test)', '500', '$5.00/M', '0.0025']);
    // One run a minute is far under 1 a second: every one traced, 43,200 a month.
    expect(row('monitor: X-Ray traces')[1]).toBe('43,200');
    expect(lines.some((l) => l.startsWith('cost: X-Ray reservoir: 1 trace/s') && l.includes('USD 12.96'))).toBe(true);
  });
  it("counts a receive per queue-triggered invocation and prices the engine's sweeps per batch", () => {
    // 6 payments swept by 2 chain transactions (3 a sweep): 2 chain-tx and 2 chain-results invocations, 2 KMS Sign.
    const lifecycle = tally({
      invocations: {
        'webhook-delivery': { count: 6, billedMs: 6 },
        'chain-tx': { count: 2, billedMs: 2 },
        'chain-results': { count: 2, billedMs: 2 },
        'event-router': { count: 5, billedMs: 5 },
      },
      requests: { 'kms Sign': 2 },
    });
    const { lines } = run({
      payments: 6,
      lifecycle,
      idle: [],
      inventory,
      sweeps: { count: 2, depositsPerBlock: 3, assumption: 'test volume' },
      eventMemory: [{ name: 'webhook-delivery', peakRssMb: 150, heapUsedMb: 30, eventBytes: 2048, failures: 0 }],
      elapsedSeconds: 1,
    });
    const row = (prefix: string): string[] => (lines.find((l) => l.trim().startsWith(prefix)) ?? '').trim().split(/\s{2,}/);
    // Receives: webhook-delivery, chain-tx and chain-results (10 of 6 payments), not the stream's event-router.
    expect(row('SQS ReceiveMessage that returned a batch')[1]).toBe('1,667');
    expect(row('KMS Sign (asymmetric)')[1]).toBe('333');
    expect(lines.some((l) => l.includes('2 chain transactions for 6 payments, 3.0 payments a sweep, 1.0 KMS Sign a sweep; assumed volume: test volume'))).toBe(
      true,
    );
    expect(lines.some((l) => l.includes('(webhook-delivery: peak resident set 150 MB, heap used 30 MB replaying its largest event (2,048 bytes)'))).toBe(true);
  });
});
