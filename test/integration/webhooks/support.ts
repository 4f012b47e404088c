import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../../shared/domain/clock.js';
import { dynamoWebhookRepositories } from '../../../shared/store/webhooks/index.js';
import type { Outcome } from '../../../shared/usecases/webhooks/deliver.js';
import type { DeliveryQueue, QueuedMessage, SecretBox, WebhookPorts, WebhookSender } from '../../../shared/usecases/webhooks/ports.js';
import type { VirtualClock } from '../../support/clock.js';

/** What a receiver saw: one entry per request that reached it. */
export interface Received {
  readonly at: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** What the receiver did: an HTTP status, or 'dropped' (connection destroyed without an answer). */
  answer: number | 'dropped';
}

export type Decide = (request: { headers: IncomingMessage['headers']; body: string }) => number | 'dropped';

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  decide: Decide;
  close(): Promise<void>;
}

/** A plain-HTTP receiver on 127.0.0.1 (ALLOW_LOOPBACK_CALLBACKS=true), answering as `decide` says. */
export async function startReceiver(decide: Decide, now: () => number = Date.now): Promise<Receiver> {
  const received: Received[] = [];
  const state = { decide };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = state.decide({ headers: req.headers, body });
      received.push({ at: now(), headers: req.headers, body, answer });
      if (answer === 'dropped') {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer, { 'Content-Type': 'text/plain' });
      res.end(answer < 300 ? 'ok' : 'receiver unavailable');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    get decide() {
      return state.decide;
    },
    set decide(d: Decide) {
      state.decide = d;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Secrets "encrypted" reversibly without KMS (the KMS path has its own test). */
export { fakeSecretBox } from '../../support/fakes/webhooks.js';

/**
 * The webhook ports over DynamoDB Local with the given clock, queue (both lanes', unless `retryQueue` is given),
 * sender and secret box (loopback allowed).
 */
export function storeDeps(parts: { clock: Clock; queue: DeliveryQueue; retryQueue?: DeliveryQueue; send: WebhookSender; secrets: SecretBox }): WebhookPorts {
  return {
    ...dynamoWebhookRepositories,
    clock: parts.clock,
    deliveryQueue: parts.queue,
    retryQueue: parts.retryQueue ?? parts.queue,
    webhookSender: parts.send,
    webhookSecrets: parts.secrets,
    callbacks: { allowLoopback: true },
  };
}

interface Pending {
  readonly body: string;
  visibleAt: number;
}

/**
 * An SQS stand-in in virtual time: a message becomes visible `delaySeconds` after it was sent; a message whose
 * handling asks for a retry (or throws) comes back after the visibility timeout. `copies` hands each message
 * to the worker that many times at once (at-least-once delivery).
 */
export class VirtualQueue implements DeliveryQueue {
  readonly sent: QueuedMessage[] = [];
  private pending: Pending[] = [];

  constructor(
    private readonly clock: VirtualClock,
    private readonly visibilityTimeoutSeconds = 60,
  ) {}

  async send(messages: readonly QueuedMessage[]): Promise<void> {
    for (const m of messages) {
      if (m.delaySeconds < 0 || m.delaySeconds > 900) throw new Error(`SQS refuses DelaySeconds=${m.delaySeconds}`);
      this.sent.push(m);
      this.pending.push({ body: m.body, visibleAt: this.clock.now().getTime() + m.delaySeconds * 1000 });
    }
  }

  get size(): number {
    return this.pending.length;
  }

  /**
   * Runs until the queue is empty: hands every visible message to `handle` (`copies` times, at most
   * `concurrency` at once), and moves the clock to the next visible message when none is.
   */
  async drain(handle: (body: string) => Promise<Outcome>, options: { copies?: number; concurrency?: number; maxSteps?: number } = {}): Promise<void> {
    const copies = options.copies ?? 1;
    const concurrency = options.concurrency ?? 16;
    for (let step = 0; this.pending.length > 0; step++) {
      if (step > (options.maxSteps ?? 100_000)) throw new Error('queue does not drain');
      const now = this.clock.now().getTime();
      const visible = this.pending.filter((p) => p.visibleAt <= now);
      if (visible.length === 0) {
        this.clock.set(Math.min(...this.pending.map((p) => p.visibleAt)));
        continue;
      }
      this.pending = this.pending.filter((p) => p.visibleAt > now);
      const jobs = visible.flatMap((p) => Array.from({ length: copies }, () => p));
      const requeue = new Set<Pending>();
      let next = 0;
      const worker = async () => {
        while (next < jobs.length) {
          const job = jobs[next++] as Pending;
          let outcome: Outcome;
          try {
            outcome = await handle(job.body);
          } catch {
            outcome = 'retry';
          }
          if (outcome === 'retry') requeue.add(job);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
      for (const job of requeue) this.pending.push({ body: job.body, visibleAt: this.clock.now().getTime() + this.visibilityTimeoutSeconds * 1000 });
    }
  }
}

/** Polls `probe` every 100 ms until it gives a value (undefined: not yet), failing after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
