import type { AttemptLog, Delivery, Subscription, WebhookSettings } from '../../../shared/domain/webhooks.js';
import type {
  AttemptLogRepository,
  AttemptPosition,
  DeliveryQueue,
  QueuedMessage,
  SecretBox,
  SecurityEvent,
  SecurityEventLog,
  WebhookAnswer,
  WebhookDeliveryRepository,
  WebhookPorts,
  WebhookRequest,
  WebhookSender,
  WebhookSettingsRepository,
  WebhookSubscriptionRepository,
} from '../../../shared/usecases/webhooks/ports.js';
import type { EmitMetrics } from '../../../shared/observability/metrics.js';
import { VirtualClock } from '../clock.js';

/**
 * In-memory webhook ports with the same conditions as the DynamoDB adapters (shared/store/webhooks/): settings
 * with optimistic concurrency, subscriptions with a URL guard and a count, deliveries claimed with a lease and
 * relays guarded per hop, the attempt log newest first. Security events are collected in `events`.
 */

export class InMemorySecurityEvents implements SecurityEventLog {
  readonly events: SecurityEvent[] = [];

  async record(event: SecurityEvent): Promise<void> {
    this.events.push(event);
  }
}

export class InMemoryWebhookSettings implements WebhookSettingsRepository {
  readonly items = new Map<string, WebhookSettings>();

  constructor(private readonly events: InMemorySecurityEvents) {}

  async get(tenantId: string): Promise<WebhookSettings | null> {
    return this.items.get(tenantId) ?? null;
  }

  async save(settings: WebhookSettings, expectedUpdatedAt: string | null, change: SecurityEvent): Promise<boolean> {
    const current = this.items.get(settings.tenantId);
    if (expectedUpdatedAt === null ? current !== undefined : current?.updatedAt !== expectedUpdatedAt) return false;
    this.items.set(settings.tenantId, settings);
    this.events.events.push(change);
    return true;
  }

  async markSlow(tenantId: string, until: Date | null): Promise<void> {
    const current = this.items.get(tenantId);
    if (current) this.items.set(tenantId, { ...current, slowUntil: until?.toISOString() ?? null });
  }
}

export class InMemoryWebhookSubscriptions implements WebhookSubscriptionRepository {
  readonly items = new Map<string, Subscription>();
  private readonly urlGuards = new Set<string>();
  private readonly counts = new Map<string, number>();

  constructor(private readonly events: InMemorySecurityEvents) {}

  private static key(tenantId: string, id: string): string {
    return `${tenantId}/${id}`;
  }

  async get(tenantId: string, id: string): Promise<Subscription | null> {
    return this.items.get(InMemoryWebhookSubscriptions.key(tenantId, id)) ?? null;
  }

  async list(tenantId: string): Promise<Subscription[]> {
    return [...this.items.values()].filter((s) => s.tenantId === tenantId).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async create(sub: Subscription, maxPerTenant: number, change: SecurityEvent): Promise<'created' | 'duplicate_url' | 'limit_reached'> {
    const guard = `${sub.tenantId}/${sub.urlHash}`;
    // The same precedence as the transaction's cancellation reasons: the URL guard is named first.
    if (this.urlGuards.has(guard)) return 'duplicate_url';
    const count = this.counts.get(sub.tenantId) ?? 0;
    if (count >= maxPerTenant) return 'limit_reached';
    this.counts.set(sub.tenantId, count + 1);
    this.urlGuards.add(guard);
    this.items.set(InMemoryWebhookSubscriptions.key(sub.tenantId, sub.id), sub);
    this.events.events.push(change);
    return 'created';
  }

  async delete(sub: Subscription, change: SecurityEvent): Promise<boolean> {
    if (!this.items.delete(InMemoryWebhookSubscriptions.key(sub.tenantId, sub.id))) return false;
    this.urlGuards.delete(`${sub.tenantId}/${sub.urlHash}`);
    this.counts.set(sub.tenantId, (this.counts.get(sub.tenantId) ?? 1) - 1);
    this.events.events.push(change);
    return true;
  }

  async recordAttempt(tenantId: string, id: string, succeeded: boolean, at: Date, failureLimit: number): Promise<void> {
    const key = InMemoryWebhookSubscriptions.key(tenantId, id);
    const sub = this.items.get(key);
    if (!sub) return;
    const failureCount = succeeded ? 0 : sub.failureCount + 1;
    const status = !succeeded && failureCount >= failureLimit ? 'inactive' : sub.status;
    this.items.set(key, { ...sub, failureCount, status, lastTriggeredAt: at.toISOString() });
  }

  async markSlow(tenantId: string, id: string, until: Date | null): Promise<void> {
    const key = InMemoryWebhookSubscriptions.key(tenantId, id);
    const sub = this.items.get(key);
    if (sub) this.items.set(key, { ...sub, slowUntil: until?.toISOString() ?? null });
  }
}

interface Relay {
  attempt: number;
  hop: number;
  until: string;
  sent: boolean;
}

export class InMemoryWebhookDeliveries implements WebhookDeliveryRepository {
  readonly items = new Map<string, Delivery>();
  private readonly relays = new Map<string, Relay>();

  private static key(tenantId: string, deliveryId: string): string {
    return `${tenantId}/${deliveryId}`;
  }

  async create(delivery: Delivery): Promise<boolean> {
    const key = InMemoryWebhookDeliveries.key(delivery.tenantId, delivery.deliveryId);
    if (this.items.has(key)) return false;
    this.items.set(key, delivery);
    return true;
  }

  async get(tenantId: string, deliveryId: string): Promise<Delivery | null> {
    return this.items.get(InMemoryWebhookDeliveries.key(tenantId, deliveryId)) ?? null;
  }

  async claimAttempt(
    tenantId: string,
    deliveryId: string,
    attempt: number,
    token: string,
    now: Date,
    leaseUntil: Date,
    handedOver?: string,
  ): Promise<Delivery | null> {
    const key = InMemoryWebhookDeliveries.key(tenantId, deliveryId);
    const d = this.items.get(key);
    if (!d || d.status !== 'pending' || d.attempts !== attempt - 1) return null;
    const takenOver = handedOver !== undefined && d.leaseToken === handedOver;
    if (!takenOver && d.leaseUntil !== null && d.leaseUntil >= now.toISOString()) return null;
    const claimed = { ...d, leaseToken: token, leaseUntil: leaseUntil.toISOString() };
    this.items.set(key, claimed);
    return claimed;
  }

  async claimRelay(tenantId: string, deliveryId: string, attempt: number, hop: number, now: Date, leaseUntil: Date): Promise<'claimed' | 'held' | 'done'> {
    const key = InMemoryWebhookDeliveries.key(tenantId, deliveryId);
    const d = this.items.get(key);
    const relay = this.relays.get(key);
    const pending = d !== undefined && d.status === 'pending' && d.attempts === attempt - 1;
    const free =
      relay === undefined ||
      relay.attempt < attempt ||
      (relay.attempt === attempt && relay.hop === hop) ||
      (relay.attempt === attempt && relay.hop === hop + 1 && !relay.sent && relay.until < now.toISOString());
    if (pending && free) {
      this.relays.set(key, { attempt, hop: hop + 1, until: leaseUntil.toISOString(), sent: false });
      return 'claimed';
    }
    if (!pending) return 'done';
    return relay !== undefined && relay.attempt === attempt && relay.hop === hop + 1 && !relay.sent ? 'held' : 'done';
  }

  async relaySent(tenantId: string, deliveryId: string, attempt: number, hop: number): Promise<void> {
    const relay = this.relays.get(InMemoryWebhookDeliveries.key(tenantId, deliveryId));
    if (relay && relay.attempt === attempt && relay.hop === hop + 1) relay.sent = true;
  }

  async completeAttempt(
    tenantId: string,
    deliveryId: string,
    attempt: number,
    token: string,
    outcome: { readonly status: Delivery['status']; readonly nextDueAt: string | null; readonly at: Date },
  ): Promise<boolean> {
    const key = InMemoryWebhookDeliveries.key(tenantId, deliveryId);
    const d = this.items.get(key);
    if (!d || d.leaseToken !== token) return false;
    this.items.set(key, { ...d, status: outcome.status, attempts: attempt, nextDueAt: outcome.nextDueAt, leaseToken: null, leaseUntil: null });
    return true;
  }
}

export class InMemoryAttemptLog implements AttemptLogRepository {
  readonly items: AttemptLog[] = [];

  private static sortKey(log: Pick<AttemptLog, 'at' | 'deliveryId' | 'attempt'>): string {
    return `${log.at}#${log.deliveryId}#${String(log.attempt).padStart(2, '0')}`;
  }

  async add(log: AttemptLog): Promise<void> {
    this.items.push(log);
  }

  async list(tenantId: string, since: Date, limit: number, after: AttemptPosition | null): Promise<{ items: AttemptLog[]; next: AttemptPosition | null }> {
    const cursor = after ? InMemoryAttemptLog.sortKey(after) : null;
    const newestFirst = this.items
      .filter((a) => a.tenantId === tenantId && a.at >= since.toISOString())
      .sort((a, b) => InMemoryAttemptLog.sortKey(b).localeCompare(InMemoryAttemptLog.sortKey(a)))
      .filter((a) => cursor === null || InMemoryAttemptLog.sortKey(a) < cursor);
    const page = newestFirst.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page, next: newestFirst.length > limit && last ? { at: last.at, deliveryId: last.deliveryId, attempt: last.attempt } : null };
  }
}

/** A queue that only records what was sent. */
export class RecordingQueue implements DeliveryQueue {
  readonly sent: QueuedMessage[] = [];

  async send(messages: readonly QueuedMessage[]): Promise<void> {
    this.sent.push(...messages);
  }

  /** Takes every message sent so far. */
  take(): QueuedMessage[] {
    return this.sent.splice(0);
  }
}

/** A receiver in memory: answers with the scripted status codes in turn (the last one repeats), records requests. */
export class ScriptedSender {
  readonly requests: WebhookRequest[] = [];
  private readonly script: (number | null)[];

  constructor(...statusCodes: (number | null)[]) {
    this.script = statusCodes.length > 0 ? statusCodes : [200];
  }

  readonly send: WebhookSender = async (request) => {
    this.requests.push(request);
    const statusCode = (this.script.length > 1 ? this.script.shift() : this.script[0]) ?? null;
    const answer: WebhookAnswer = {
      statusCode,
      latencyMs: 1,
      excerpt: statusCode === null ? '' : 'ok',
      error: statusCode === null ? 'timeout after 10000 ms' : null,
    };
    return answer;
  };
}

/** Secrets "sealed" reversibly, bound to the tenant. */
export const fakeSecretBox: SecretBox = {
  encrypt: async (plain, tenantId) => Buffer.from(`${tenantId}|${plain}`).toString('base64'),
  decrypt: async (cipher, tenantId) => {
    const text = Buffer.from(cipher, 'base64').toString('utf8');
    if (!text.startsWith(`${tenantId}|`)) throw new Error('wrong tenant');
    return text.slice(tenantId.length + 1);
  },
};

/** One metrics line a use case printed: its namespace, dimensions and values by name. */
export interface RecordedMetrics {
  readonly namespace: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, number>>;
}

export interface FakeWebhooks {
  readonly deps: WebhookPorts & { readonly emit: EmitMetrics };
  /** The metrics the delivery worker printed (instead of EMF lines on stdout). */
  readonly metrics: RecordedMetrics[];
  readonly clock: VirtualClock;
  readonly events: InMemorySecurityEvents;
  readonly settings: InMemoryWebhookSettings;
  readonly subscriptions: InMemoryWebhookSubscriptions;
  readonly deliveries: InMemoryWebhookDeliveries;
  readonly attempts: InMemoryAttemptLog;
  readonly queue: RecordingQueue;
  /** The retry lane's queue: the same as `queue` unless `separateRetryQueue`. */
  readonly retryQueue: RecordingQueue;
  readonly sender: ScriptedSender;
}

/** Every webhook port in memory; names resolve to a public address, so no test touches DNS. */
export function fakeWebhooks(options: { clock?: VirtualClock; sender?: ScriptedSender; separateRetryQueue?: boolean } = {}): FakeWebhooks {
  const clock = options.clock ?? new VirtualClock(Date.parse('2026-05-01T12:00:00.000Z'));
  const events = new InMemorySecurityEvents();
  const settings = new InMemoryWebhookSettings(events);
  const subscriptions = new InMemoryWebhookSubscriptions(events);
  const deliveries = new InMemoryWebhookDeliveries();
  const attempts = new InMemoryAttemptLog();
  const queue = new RecordingQueue();
  const retryQueue = options.separateRetryQueue ? new RecordingQueue() : queue;
  const sender = options.sender ?? new ScriptedSender(200);
  const metrics: RecordedMetrics[] = [];
  const deps: FakeWebhooks['deps'] = {
    emit: (namespace, dimensions, values) => {
      metrics.push({ namespace, dimensions, values: Object.fromEntries(values.map((v) => [v.name, v.value])) });
    },
    clock,
    webhookSettings: settings,
    webhookSubscriptions: subscriptions,
    webhookDeliveries: deliveries,
    webhookAttempts: attempts,
    securityEvents: events,
    webhookSecrets: fakeSecretBox,
    webhookSender: sender.send,
    deliveryQueue: queue,
    retryQueue,
    callbacks: { allowLoopback: false, resolve: async () => ['93.184.216.34'] },
  };
  return { deps, metrics, clock, events, settings, subscriptions, deliveries, attempts, queue, retryQueue, sender };
}
