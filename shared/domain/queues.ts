/**
 * The work queues, as data. The event catalogue (./events.ts) names them as consumers; `infra/definition.ts`
 * turns them into queues (each with its dead-letter queue) and `shared/queue/sqs.ts` finds their URLs.
 *
 * - `webhook-delivery`: tenant-visible events and their first attempts, the first lane (functions/webhook-delivery).
 * - `webhook-retries`: attempts handed over by the first lane and every later attempt, the retry lane
 *   (functions/webhook-retries).
 * - `chain-results`: the outcome of a chain transaction (sweeps and withdrawals; functions/chain-results).
 * - `transfers`: a chain transaction to sign and broadcast (functions/chain-tx).
 * - `wallet-transfers`: accepted wallet transfers to settle (functions/wallet-transfers).
 * - `event-router-failures`: stream records the event router gave up on (no consumer; alarmed).
 * - `transaction-exports`: requested transaction exports to write to S3 (functions/transaction-exports).
 * - `scanner-wake`: payments just created, so the chain scanner of their network starts watching at once rather
 *   than at its next scheduled run (functions/chain-scanner, woken between its runs).
 * - `follower-wake`: chain transactions just requested, so the chain-tx follower of their network follows them at
 *   once rather than at its next scheduled run (functions/chain-tx-follower, woken between its runs).
 */
export const QUEUE_NAMES = [
  'webhook-delivery',
  'webhook-retries',
  'chain-results',
  'transfers',
  'wallet-transfers',
  'event-router-failures',
  'transaction-exports',
  'scanner-wake',
  'follower-wake',
] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** The environment variable through which a function learns a queue's URL (CDK and the local stack set it). */
export const queueUrlEnv = (name: QueueName): string => `QUEUE_URL_${name.toUpperCase().replace(/-/g, '_')}`;

/** One message to send to a queue (shared/queue/sqs.ts sends them ten per call). */
export interface QueueMessage {
  /** Unique within one batch call; names the message in the failure list. */
  readonly id: string;
  readonly body: string;
  /** 0..900 seconds. */
  readonly delaySeconds?: number;
  readonly attributes?: Readonly<Record<string, string>>;
}
