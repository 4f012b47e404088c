import type { AcceptedWork, RedriveRecord } from '../../../shared/domain/reconcile.js';
import { isOverdue, MAX_REDRIVES, nextRecord, overdueBefore, planRedrive } from '../../../shared/domain/reconcile.js';
import type { QueueMessage, QueueName } from '../../../shared/domain/queues.js';
import type { AcceptedWorkQueue, OverdueWork, RedriveLog } from '../../../shared/usecases/monitoring/ports.js';
import { ReconcileReadError, reconcileAcceptedWork, redriveKey } from '../../../shared/usecases/monitoring/reconcile.js';
import { runMonitor } from '../../../shared/usecases/monitoring/monitor.js';
import { VirtualClock } from '../../support/clock.js';

const rule = { afterMinutes: 10, maxRedrives: MAX_REDRIVES };
const MINUTE = 60_000;
const START = Date.parse('2026-03-01T09:00:00.000Z');
const at = (minutes: number): Date => new Date(START + minutes * MINUTE);
const iso = (minutes: number): string => at(minutes).toISOString();

describe('the re-drive deadline', () => {
  it('work is overdue only when unchanged for LONGER than the deadline; undatable work is overdue', () => {
    expect(isOverdue({ updatedAt: iso(0) }, rule, at(10))).toBe(false);
    expect(isOverdue({ updatedAt: iso(0) }, rule, at(10.01))).toBe(true);
    expect(isOverdue({ updatedAt: iso(5) }, rule, at(12))).toBe(false);
    expect(isOverdue({ updatedAt: 'not a date' }, rule, at(0))).toBe(true);
    expect(overdueBefore(at(30), rule)).toBe(iso(20));
  });

  it('re-drives once past the deadline, waits a deadline for it, then counts the work stuck and re-drives it again, at most MAX_REDRIVES times', () => {
    const work = { updatedAt: iso(0) };
    const clock = new VirtualClock(at(0));
    let record: RedriveRecord | null = null;
    const runs: string[] = [];
    // One run a minute for an hour and a half, the work never moving.
    for (let minute = 0; minute <= 90; minute++) {
      clock.set(at(minute));
      const plan = planRedrive(work, record, rule, clock.now());
      if (plan.redrive) {
        record = nextRecord(work, record, clock.now());
        runs.push(`${minute}:redrive${plan.stuck ? '+stuck' : ''}`);
      } else if (plan.stuck) runs.push(`${minute}:stuck`);
    }
    const stuckOnly = runs.filter((r) => r.endsWith(':stuck'));
    expect(runs.filter((r) => r.includes('redrive'))).toEqual(['11:redrive', '22:redrive+stuck', '33:redrive+stuck']);
    // After the last re-drive a deadline passes, then it is counted stuck every run without more re-drives.
    expect(stuckOnly[0]).toBe('44:stuck');
    expect(stuckOnly).toHaveLength(90 - 44 + 1);
    expect(record).toEqual({ count: MAX_REDRIVES, lastAt: iso(33) });
  });

  it('work that moved after a re-drive starts over: its old record does not make it stuck', () => {
    const old: RedriveRecord = { count: 3, lastAt: iso(11) };
    // Changed at minute 15 (an export started running), then unchanged: overdue again at 25.
    expect(planRedrive({ updatedAt: iso(15) }, old, rule, at(20))).toEqual({ redrive: false, stuck: false });
    expect(planRedrive({ updatedAt: iso(15) }, old, rule, at(26))).toEqual({ redrive: true, stuck: false });
    expect(nextRecord({ updatedAt: iso(15) }, old, at(26))).toEqual({ count: 1, lastAt: iso(26) });
  });

  it('refuses a rule that would re-drive everything or nothing', () => {
    expect(() => planRedrive({ updatedAt: iso(0) }, null, { afterMinutes: 0, maxRedrives: 3 }, at(1))).toThrow(RangeError);
    expect(() => planRedrive({ updatedAt: iso(0) }, null, { afterMinutes: 10, maxRedrives: 0 }, at(11))).toThrow(RangeError);
  });
});

/* ---------------------------------------------------------------- the use case, with fakes */

const transfer = (id: string, updatedAt: string): OverdueWork => ({
  kind: 'wallet_transfer',
  tenantId: 't1',
  id,
  status: 'accepted',
  updatedAt,
  message: { queue: 'wallet-transfers', eventId: `wallet_transfer:${id}:settle`, eventType: 'wallet_transfer.accepted', body: `{"id":"${id}"}` },
});

function fakes(work: OverdueWork[]) {
  const records = new Map<string, RedriveRecord>();
  const sent: { queue: QueueName; message: QueueMessage }[] = [];
  const queue: AcceptedWorkQueue = {
    kind: 'wallet_transfer',
    overdue: async (before) => work.filter((w) => w.updatedAt <= before),
  };
  const redrives: RedriveLog = {
    get: async (items) => new Map(items.flatMap((w) => (records.has(redriveKey(w)) ? [[redriveKey(w), records.get(redriveKey(w))!] as const] : []))),
    claim: async (w: AcceptedWork, previous, next) => {
      const current = records.get(redriveKey(w)) ?? null;
      if (current?.lastAt !== previous?.lastAt) return false;
      records.set(redriveKey(w), next);
      return true;
    },
  };
  const metrics: [string, string, number][] = [];
  return {
    sent,
    metrics,
    queue,
    redrives,
    sender: {
      sendBatch: async (name: QueueName, messages: readonly QueueMessage[]) => {
        sent.push(...messages.map((message) => ({ queue: name, message })));
        return [];
      },
    },
    emit: (_ns: string, dimensions: Readonly<Record<string, string>>, values: readonly { name: string; value: number }[]) => {
      for (const v of values) metrics.push([dimensions.work ?? '', v.name, v.value]);
    },
  };
}

describe('reconcileAcceptedWork (fakes, virtual clock)', () => {
  it('sends the overdue work its own message once per deadline, prints 0 when nothing is stuck, and counts what a re-drive did not move', async () => {
    const clock = new VirtualClock(at(0));
    const f = fakes([transfer('a', iso(0)), transfer('b', iso(8))]);
    const run = () => reconcileAcceptedWork({ queues: [f.queue], redrives: f.redrives, sender: f.sender, clock, rule, readLimit: 100, emit: f.emit });

    clock.set(at(10));
    expect(await run()).toEqual({ redriven: { wallet_transfer: 0 }, stuck: { wallet_transfer: 0 } });
    expect(f.metrics).toEqual([
      ['wallet_transfer', 'AcceptedWorkStuck', 0],
      ['wallet_transfer', 'AcceptedWorkRedriven', 0],
    ]);

    clock.set(at(11));
    expect(await run()).toEqual({ redriven: { wallet_transfer: 1 }, stuck: { wallet_transfer: 0 } });
    expect(f.sent.map((s) => [s.queue, s.message.body, s.message.attributes?.event_id])).toEqual([
      ['wallet-transfers', '{"id":"a"}', 'wallet_transfer:a:settle'],
    ]);
    // The same minute again: nothing more.
    expect((await run()).redriven).toEqual({ wallet_transfer: 0 });

    clock.set(at(19));
    expect(await run()).toEqual({ redriven: { wallet_transfer: 1 }, stuck: { wallet_transfer: 0 } });
    expect(f.sent.map((s) => s.message.body)).toEqual(['{"id":"a"}', '{"id":"b"}']);

    clock.set(at(22));
    f.metrics.length = 0;
    expect(await run()).toEqual({ redriven: { wallet_transfer: 1 }, stuck: { wallet_transfer: 1 } });
    expect(f.metrics).toContainEqual(['wallet_transfer', 'AcceptedWorkStuck', 1]);
  });

  it('two runs at once send each message once: the re-drive record is claimed before sending', async () => {
    const clock = new VirtualClock(at(30));
    const f = fakes([transfer('a', iso(0)), transfer('b', iso(1)), transfer('c', iso(2))]);
    const run = () => reconcileAcceptedWork({ queues: [f.queue], redrives: f.redrives, sender: f.sender, clock, rule, readLimit: 100, emit: f.emit });
    const [one, two] = await Promise.all([run(), run()]);
    expect((one.redriven.wallet_transfer ?? 0) + (two.redriven.wallet_transfer ?? 0)).toBe(3);
    expect(f.sent.map((s) => s.message.body).sort()).toEqual(['{"id":"a"}', '{"id":"b"}', '{"id":"c"}']);
  });

  it('a queue that cannot be read fails the run after the others were re-driven, its values left out', async () => {
    const clock = new VirtualClock(at(30));
    const f = fakes([transfer('a', iso(0))]);
    const broken: AcceptedWorkQueue = { kind: 'transaction_export', overdue: async () => Promise.reject(new Error('throttled')) };
    await expect(
      reconcileAcceptedWork({ queues: [f.queue, broken], redrives: f.redrives, sender: f.sender, clock, rule, readLimit: 100, emit: f.emit }),
    ).rejects.toThrow(ReconcileReadError);
    expect(f.sent).toHaveLength(1);
    expect(f.metrics.map(([work]) => work)).toEqual(['wallet_transfer', 'wallet_transfer']);
  });
});

describe('runMonitor', () => {
  it('runs the reconciler and the stuck-work report side by side: one failing does not stop the other, and fails the run', async () => {
    const clock = new VirtualClock(at(30));
    const f = fakes([transfer('a', iso(0))]);
    const stuckEmitted: string[] = [];
    const stuck = {
      networks: ['ETH'],
      openPayments: async () => [],
      processingWithdrawals: async () => Promise.reject(new Error('throttled')),
      clock,
      sweepStuckMinutes: 15,
      withdrawalStuckMinutes: 30,
      emit: (_ns: string, dimensions: Readonly<Record<string, string>>) => void stuckEmitted.push(dimensions.network ?? ''),
    };
    const reconcile = { queues: [f.queue], redrives: f.redrives, sender: f.sender, clock, rule, readLimit: 100, emit: f.emit };
    // The stuck-work read fails: the re-drive still went out, and the run fails with the report's error.
    await expect(runMonitor({ reconcile, stuck })).rejects.toThrow(/payments|withdrawals|throttled/);
    expect(f.sent).toHaveLength(1);
    expect(stuckEmitted).toEqual(['ETH']);
    // Both healthy: both reports.
    const healthy = await runMonitor({ reconcile, stuck: { ...stuck, processingWithdrawals: async () => [] } });
    expect(healthy.reconcile.redriven).toEqual({ wallet_transfer: 0 });
    expect(healthy.stuck.withdrawals?.byNetwork).toEqual({ ETH: 0 });
  });
});
