/**
 * Webhook delivery on the local stack, end to end: each event is committed as an outbox item (DynamoDB Local),
 * read from the table's stream by the stream source, routed by the event-router handler to the local SQS
 * server, received by the queue source and handled by the webhook-delivery handler (the production wiring:
 * DynamoDB, SQS, the local KMS endpoint, the HTTP sender), which posts to a receiver on 127.0.0.1 answering 200.
 *
 * 1. Throughput: `events` events committed while the router is held, then let through; deliveries per second
 *    from the release to the last arrival: what the pipeline delivers, the producers' commits left out.
 * 2. Baseline: the table operations one delivery makes (as the webhook-delivery use case issues them for these
 *    events), issued directly by `concurrency` workers, `events` times, on the same table.
 *    The two alternate for `rounds` rounds after a round of each as warm-up (the host's other load drifts;
 *    neither side gets the cold or the warm end); each figure is the rate over all its rounds.
 * 3. Latency: events committed at a steady rate (`rate`, default half the measured throughput) for about 10 s;
 *    commit-to-receiver p50/p99 from the commit's answer to the request's arrival, and where that time goes.
 *
 * 4. Isolation (`benchWebhookIsolation`): tenant A's commit-to-receiver p99 while a tenant B's receiver hangs
 *    on 100 deliveries, beside the same p99 with B quiet (both webhook lanes run).
 *
 *   npx tsx bench/webhooks.ts [events]
 *   npx tsx bench/webhooks.ts isolation
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { WORKER_FUNCTIONS } from '../infra/definition.js';
import type { PollerWorker } from '../infra/local/pollers.js';
import { startStack } from '../infra/local/stack.js';
import { db, meterCapacity, tableName } from '../shared/store/client.js';
import { keys } from '../shared/store/keys.js';
import { outboxEvent, outboxPutItem } from '../shared/store/outbox.js';
import { webhooksRuntime } from '../shared/runtime/webhooks.js';
import { createSettings } from '../shared/usecases/webhooks/create-settings.js';
import { percentiles } from './payment-lifecycle.js';
import type { Percentiles } from './payment-lifecycle.js';
import { benchWorker } from './worker-wrap.js';

export interface Stage {
  readonly name: string;
  readonly ms: Percentiles;
}

export interface WebhookBench {
  /** Deliveries per second of a backlog of committed events, from its release to the last arrival. */
  readonly deliveriesPerSecond: number;
  /** Baseline: one delivery's table operations issued directly, per second. */
  readonly directPerSecond: number;
  /** Table calls per delivery: measured in the pipeline (the outbox commit left out), and issued by the baseline. */
  readonly callsPerDelivery: number;
  readonly directCalls: number;
  /** Latency run: events per second offered, how many, commit-to-receiver, and its stages. */
  readonly rate: number;
  readonly paced: number;
  readonly latency: Percentiles;
  readonly stages: readonly Stage[];
  /** The throughput runs' stages after the router: where a backlog waits. */
  readonly drainStages: readonly Stage[];
  readonly events: number;
  readonly rounds: number;
  readonly concurrency: number;
  /** 4. Tenant isolation, measured on the same stack after the rest. */
  readonly isolation?: IsolationBench;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What each span between two noted moments is. */
const STAGE_NAMES: Readonly<Record<string, string>> = {
  'commit -> router': 'commit -> event-router invoked (stream poll)',
  'router -> routed': 'event-router (its SendMessageBatch calls)',
  'routed -> event message': 'SQS -> webhook-delivery invoked',
  'event message -> receiver': 'webhook-delivery: plan, first attempt -> receiver',
  'event message -> attempt message': 'webhook-delivery: plan, enqueue attempt -> invoked again',
  'attempt message -> receiver': 'webhook-delivery: attempt -> receiver',
};

/** When each event reached each stage (performance.now()), by event id. */
class Stages {
  readonly at = new Map<string, Record<string, number>>();
  mark(eventId: string, stage: string): void {
    const row = this.at.get(eventId) ?? {};
    row[stage] ??= performance.now();
    this.at.set(eventId, row);
  }
}

/**
 * event-router and the two webhook lanes as defined, their real handlers wrapped to note when an event reaches them;
 * the router waits while `gate.held` is set.
 */
function outboxWorkers(stages: Stages, gate: { held: Promise<void> | null }): PollerWorker[] {
  const markMessages = (event: SQSEvent): void => {
    for (const r of event.Records) {
      const body = JSON.parse(r.body) as { event_id?: string; delivery_id?: string };
      if (body.event_id) stages.mark(body.event_id, 'event message');
      else if (body.delivery_id) stages.mark(body.delivery_id.split('.')[0] ?? '', 'attempt message');
    }
  };
  const wrap = (name: string, entry: string, mark: (event: never) => void): PollerWorker =>
    benchWorker(name, entry, async (event, context, load) => {
      if (name === 'event-router' && gate.held) await gate.held;
      mark(event);
      const out = await (await load())(event, context);
      if (name === 'event-router') {
        for (const r of (event as DynamoDBStreamEvent).Records) {
          const id = r.dynamodb?.NewImage?.event_id?.S;
          if (id) stages.mark(id, 'routed');
        }
      }
      return out;
    });
  return [
    wrap('event-router', '../functions/event-router/handler.js', (event: DynamoDBStreamEvent) => {
      for (const r of event.Records) {
        const id = r.dynamodb?.NewImage?.event_id?.S;
        if (id) stages.mark(id, 'router');
      }
    }),
    wrap('webhook-delivery', '../functions/webhook-delivery/handler.js', markMessages),
    // The retry lane: attempts the first lane handed over (a receiver that did not answer within its 2 s).
    wrap('webhook-retries', '../functions/webhook-retries/handler.js', markMessages),
  ];
}

/**
 * One delivery's table operations as the webhook-delivery use case issues them for an event to the tenant's
 * default URL: the variant-A settings read, the delivery created holding the lease of attempt 1, then the outcome
 * and the attempt log written side by side.
 */
const DIRECT_CALLS = 4;
async function directDelivery(tenantId: string, url: string): Promise<void> {
  const eventId = randomUUID();
  const deliveryId = `${eventId}.a`;
  const key = keys.webhookDelivery(tenantId, deliveryId);
  const now = new Date().toISOString();
  const token = randomUUID();
  const ttl = Math.floor(Date.now() / 1000) + 30 * 86400;
  const body = JSON.stringify({
    event: 'payment_status_update',
    data: { transaction_id: eventId, status: 'completed', previous_status: 'confirmed', order_id: 'o-1' },
    timestamp: now,
  });
  await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhookSettings(tenantId) }));
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...key,
        type: 'webhook_delivery',
        tenant_id: tenantId,
        delivery_id: deliveryId,
        event_id: eventId,
        event_type: 'payment_status_update',
        webhook_id: eventId,
        destination: { kind: 'default', url },
        body,
        status: 'pending',
        attempts: 0,
        created_at: now,
        next_due_at: now,
        lease_token: token,
        lease_until: now,
        ttl,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  await Promise.all([
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #s = :s, attempts = :n, next_due_at = :due, last_attempt_at = :at, lease_token = :null, lease_until = :null',
        ConditionExpression: 'lease_token = :t',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': 'succeeded', ':n': 1, ':due': null, ':at': now, ':null': null, ':t': token },
      }),
    ),
    db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.webhookAttempt(tenantId, now, deliveryId, 1),
          type: 'webhook_attempt',
          tenant_id: tenantId,
          delivery_id: deliveryId,
          event_id: eventId,
          event_type: 'payment_status_update',
          webhook_id: eventId,
          url,
          attempt: 1,
          at: now,
          request_body: body,
          status_code: 200,
          latency_ms: '1.2',
          response_excerpt: 'ok',
          error: null,
          succeeded: true,
          ttl,
        },
      }),
    ),
  ]);
}

/** A receiver that answers 200 at once and notes when each `webhook-id` first arrived (keep-alive held). */
function arrivalReceiver(arrivals: Map<string, number>): Server {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, performance.now());
      res.writeHead(200).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

/** Runs `task(i)` for i in [0, count) on `concurrency` workers. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export async function benchWebhooks({
  events = 1000,
  rounds = 2,
  concurrency = 16,
  rate,
  isolation,
}: {
  events?: number;
  rounds?: number;
  concurrency?: number;
  rate?: number;
  isolation?: Parameters<typeof benchWebhookIsolation>[0];
} = {}): Promise<WebhookBench> {
  const stages = new Stages();
  const gate: { held: Promise<void> | null } = { held: null };
  const arrivals = new Map<string, number>();
  const receiver = arrivalReceiver(arrivals);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const stack = await startStack({
    dataDir: null,
    logLevel: 'error',
    ports: { http: 0, dynamodb: 0, sqs: 0, kms: 0, anvil: 0 },
    parts: { anvil: false, contracts: false, tron: false, solana: false, http: false, pollers: true },
    workers: outboxWorkers(stages, gate),
  });
  try {
    const tenantId = randomUUID();
    await createSettings({ tenantId, credential: 'bench' }, { callback_url: url }, new Date(), webhooksRuntime());

    const committed = new Map<string, number>();
    let serial = 0;
    const commit = async (): Promise<string> => {
      const event = outboxEvent(tenantId, 'payment_status_update', {
        transaction_id: randomUUID(),
        status: 'completed',
        previous_status: 'confirmed',
        order_id: `o-${serial++}`,
      });
      // The outbox item with its condition, as a producer's transaction writes it (a one-item transaction is a
      // conditional put; over the transaction API DynamoDB Local takes several times as long).
      const put = outboxPutItem(event).Put;
      if (!put) throw new Error('the outbox item is not a put');
      await db().send(new PutCommand(put));
      committed.set(event.eventId, performance.now());
      return event.eventId;
    };
    const commitMany = async (count: number): Promise<string[]> => {
      const ids: string[] = [];
      await pool(count, concurrency, async () => void ids.push(await commit()));
      return ids;
    };
    /** Resolves to the last arrival once every event reached the receiver. */
    const delivered = async (ids: readonly string[]): Promise<number> => {
      const deadline = Date.now() + 120_000 + ids.length * 100;
      for (;;) {
        const missing = ids.filter((id) => !arrivals.has(id)).length;
        if (missing === 0) return Math.max(...ids.map((id) => arrivals.get(id) as number));
        if (Date.now() > deadline) throw new Error(`${missing} of ${ids.length} events never reached the receiver`);
        await sleep(5);
      }
    };
    /** Per stage, from the one before (the commit first) to it, and from the last to the receiver. */
    const stagesOf = (ids: readonly string[]): Stage[] => {
      const rows: Stage[] = [];
      const at = (id: string, stage: string): number | undefined =>
        stage === 'commit' ? committed.get(id) : stage === 'receiver' ? arrivals.get(id) : stages.at.get(id)?.[stage];
      const seen = ['router', 'routed', 'event message', 'attempt message'].filter((name) => ids.some((id) => at(id, name) !== undefined));
      let from = 'commit';
      for (const name of [...seen, 'receiver']) {
        const spans = ids.flatMap((id) => {
          const a = at(id, from);
          const b = at(id, name);
          return a === undefined || b === undefined ? [] : [b - a];
        });
        rows.push({ name: STAGE_NAMES[`${from} -> ${name}`] ?? `${from} -> ${name}`, ms: percentiles(spans) });
        from = name;
      }
      return rows;
    };
    /** A backlog of `count` committed events let through at once; resolves to its ids and the time it took. */
    const drain = async (count: number): Promise<{ ids: string[]; ms: number }> => {
      let release: () => void = () => undefined;
      gate.held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const ids = await commitMany(count);
      const started = performance.now();
      gate.held = null;
      release();
      return { ids, ms: (await delivered(ids)) - started };
    };
    const direct = async (count: number): Promise<number> => {
      const started = performance.now();
      await pool(count, concurrency, () => directDelivery(tenantId, url));
      return performance.now() - started;
    };

    // Warm-up: one round of each side, not counted (modules, connections, the KMS decrypt, and both processes'
    // JIT: the pipeline runs far more code than the baseline and reaches its pace later), then one metered round.
    await drain(events);
    await direct(events);
    await sleep(500);
    const meter = meterCapacity();
    const metered = await commitMany(100);
    await delivered(metered);
    await sleep(500);
    const totals = meter.totals();
    meter.stop();
    // Less the commits (one PutItem per event).
    const callsPerDelivery = (totals.calls - metered.length) / metered.length;

    // 1 and 2, alternating.
    let drainMs = 0;
    let directMs = 0;
    const drained: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const run = await drain(events);
      drainMs += run.ms;
      drained.push(...run.ids);
      await sleep(300);
      directMs += await direct(events);
      await sleep(300);
    }
    const deliveriesPerSecond = (rounds * events) / (drainMs / 1000);
    const directPerSecond = (rounds * events) / (directMs / 1000);

    // 3. Latency at a steady rate.
    const offered = rate ?? Math.max(1, Math.round(deliveriesPerSecond / 2));
    const paced = Math.max(50, Math.round(offered * 10));
    const pacedIds: string[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: paced }, async (_, i) => {
        await sleep(Math.max(0, t0 + (i * 1000) / offered - performance.now()));
        pacedIds.push(await commit());
      }),
    );
    await delivered(pacedIds);
    const latency = percentiles(pacedIds.map((id) => (arrivals.get(id) as number) - (committed.get(id) as number)));
    const isolated = isolation ? await benchWebhookIsolation({ ...isolation, ownStack: false }) : undefined;

    return {
      deliveriesPerSecond,
      directPerSecond,
      callsPerDelivery,
      directCalls: DIRECT_CALLS,
      rate: offered,
      paced,
      latency,
      stages: stagesOf(pacedIds),
      drainStages: stagesOf(drained).slice(1),
      events,
      rounds,
      concurrency,
      ...(isolated ? { isolation: isolated } : {}),
    };
  } finally {
    await stack.stop();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

/* ------------------------------------------------------------------ isolation ------------------------------ */

export interface IsolationBench {
  /** Tenant A's events per second and per run; tenant B's hanging deliveries per noisy run; rounds. */
  readonly rate: number;
  readonly perRun: number;
  readonly hanging: number;
  readonly rounds: number;
  /** A's commit-to-receiver with B quiet (the baseline) and while B's receiver hangs. */
  readonly quiet: Percentiles;
  /** While B's `hanging` deliveries hang: B's events committed 2.5 s before A's run (their first tries over). */
  readonly hanging100: Percentiles;
  /** While B's `hanging` events are committed at once as A's run starts (their first tries inside it). */
  readonly noisy: Percentiles;
  /** A's commit-to-receiver while B commits as many events to a receiver that answers at once (B's load alone). */
  readonly busy: Percentiles;
  /** Requests B's receiver got (and never answered) over the noisy runs: first-lane tries and retry-lane attempts. */
  readonly bRequests: number;
  /** A's deliveries that did not succeed at the first attempt (should be 0). */
  readonly aRetried: number;
}

/**
 * Tenant isolation (issue 25, item 4), on the local stack with both webhook lanes: tenant A's events committed at
 * a steady `rate` (`perRun` of them a run), commit-to-receiver at A's receiver. Quiet runs (B sends nothing) and
 * noisy runs alternate, `rounds` of each after a warm-up: a noisy run commits `hanging` events of a fresh tenant B
 * (no slow mark yet: the worst case) at once as A's run starts, to a receiver that reads each request and never
 * answers: A's p99 in the noisy runs beside its p99 in the quiet runs of the same process. A third
 * kind of run has B's hanging events committed 2.5 s before A's run starts, so that B's deliveries hang on the
 * retry lane through it while B's burst and first tries are over: the figure with the target. A fourth has B's
 * burst go to a receiver that answers at once: what B's load alone costs A
 * on this machine (the local stack runs every part in one process on the same cores).
 */
export async function benchWebhookIsolation({
  rate = 50,
  perRun = 500,
  hanging = 100,
  rounds = 2,
  ownStack = true,
}: { rate?: number; perRun?: number; hanging?: number; rounds?: number; ownStack?: boolean } = {}): Promise<IsolationBench> {
  const arrivals = new Map<string, number>();
  const fast = arrivalReceiver(arrivals);
  let bRequests = 0;
  const hangs = createServer((req) => {
    bRequests++;
    req.resume();
  });
  await Promise.all([fast, hangs].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  const urlOf = (s: typeof fast) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`;
  // Within benchWebhooks (`ownStack` false) its stack runs: the handlers' modules, loaded once in a process, keep
  // the endpoints of the first stack they saw.
  const stack = ownStack
    ? await startStack({
        dataDir: null,
        logLevel: 'error',
        ports: { http: 0, dynamodb: 0, sqs: 0, kms: 0, anvil: 0 },
        parts: { anvil: false, contracts: false, tron: false, solana: false, http: false, pollers: true },
        workers: WORKER_FUNCTIONS.filter((w) => ['event-router', 'webhook-delivery', 'webhook-retries'].includes(w.name)),
      })
    : null;
  try {
    const deps = webhooksRuntime();
    const a = randomUUID();
    await createSettings({ tenantId: a, credential: 'bench' }, { callback_url: urlOf(fast) }, new Date(), deps);
    const committed = new Map<string, number>();
    let serial = 0;
    const commit = async (tenantId: string, track: boolean): Promise<string> => {
      const event = outboxEvent(tenantId, 'payment_status_update', {
        transaction_id: randomUUID(),
        status: 'completed',
        previous_status: 'confirmed',
        order_id: `o-${serial++}`,
      });
      const put = outboxPutItem(event).Put;
      if (!put) throw new Error('the outbox item is not a put');
      await db().send(new PutCommand(put));
      if (track) committed.set(event.eventId, performance.now());
      return event.eventId;
    };
    /** A's run: `perRun` events at `rate`; resolves to their latencies once all arrived. */
    const run = async (count: number, during?: () => Promise<void>): Promise<number[]> => {
      const ids: string[] = [];
      const t0 = performance.now();
      await Promise.all([
        ...Array.from({ length: count }, async (_, i) => {
          await sleep(Math.max(0, t0 + (i * 1000) / rate - performance.now()));
          ids.push(await commit(a, true));
        }),
        during?.() ?? Promise.resolve(),
      ]);
      const deadline = Date.now() + 120_000;
      while (ids.some((id) => !arrivals.has(id))) {
        if (Date.now() > deadline) throw new Error(`${ids.filter((id) => !arrivals.has(id)).length} of A's events never arrived`);
        await sleep(5);
      }
      return ids.map((id) => (arrivals.get(id) as number) - (committed.get(id) as number));
    };
    /** A fresh tenant B, its `hanging` events committed at once, to a receiver that hangs (or answers: `healthy`). */
    const burst = (healthy: boolean) => async (): Promise<void> => {
      const b = randomUUID();
      await createSettings({ tenantId: b, credential: 'bench' }, { callback_url: healthy ? urlOf(fast) : urlOf(hangs) }, new Date(), deps);
      await pool(hanging, 16, async () => void (await commit(b, false)));
    };

    await run(Math.min(perRun, 200)); // warm-up: modules, connections, the KMS decrypt, JIT
    const quiet: number[] = [];
    const noisy: number[] = [];
    const busy: number[] = [];
    const steady: number[] = [];
    for (let round = 0; round < rounds; round++) {
      quiet.push(...(await run(perRun)));
      await sleep(500);
      await burst(false)();
      await sleep(2_500);
      steady.push(...(await run(perRun)));
      await sleep(500);
      noisy.push(...(await run(perRun, burst(false))));
      await sleep(500);
      busy.push(...(await run(perRun, burst(true))));
      await sleep(500);
    }
    const aLog = await deps.webhookAttempts.list(a, new Date(Date.now() - 3600_000), 1000, null);
    return {
      rate,
      perRun,
      hanging,
      rounds,
      quiet: percentiles(quiet),
      hanging100: percentiles(steady),
      noisy: percentiles(noisy),
      busy: percentiles(busy),
      bRequests,
      aRetried: aLog.items.filter((x) => x.attempt > 1 || !x.succeeded).length,
    };
  } finally {
    await stack?.stop();
    for (const s of [fast, hangs]) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  (process.argv[2] === 'isolation' ? benchWebhookIsolation() : benchWebhooks({ events: Number(process.argv[2] ?? 1000) })).then(
    (r) => {
      console.log(JSON.stringify(r, null, 1));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
