import { QUEUE_NAMES, queueUrlEnv } from '../shared/domain/queues.js';
import type { QueueName } from '../shared/domain/queues.js';

/**
 * What runs where, as data: every Lambda with its trigger, every queue. CDK (infra/cdk) turns it into
 * AWS resources; the local stack (infra/local) serves the same handlers from it. A new function or queue
 * is added here once.
 */

/** Route keys in API Gateway HTTP API syntax. `$default` catches every path no other route matches. */
export type RouteKey = `ANY /${string}` | '$default';

export interface ApiFunction {
  readonly name: string;
  /** Module exporting `handler(event: APIGatewayProxyEventV2)`, relative to the repository root. */
  readonly entry: string;
  readonly routes: readonly RouteKey[];
  /** Makes custody's Ed25519 Solana keys (SolanaKeys.grantCreate: CreateKey, GetPublicKey, ScheduleKeyDeletion). */
  readonly solanaKeys?: 'create';
  /**
   * `public-read`: a page anyone may open (the hosted checkout): it reads the table and nothing else (no writes, no
   * queues, no KMS), and its environment names only the table and what its pages show (no secrets key, no RPC URLs).
   * `public-page`: a page anyone may open that writes what its visitor enters (the refund claim page): like the
   * checkout, served without the API pipeline (no token, no route table), with the grants of an API function.
   */
  readonly access?: 'public-read' | 'public-page';
  /**
   * Files (relative to the repository root) shipped beside the bundle's `index.js`, under their own names, rather
   * than bundled: data a route reads when first asked (the OpenAPI document, the docs page's script), which the
   * Lambda would otherwise parse at every cold start.
   */
  readonly files?: readonly string[];
}

export type WorkerTrigger =
  | {
      readonly kind: 'schedule';
      readonly everyMinutes: number;
      /**
       * A queue whose messages also invoke the worker between its scheduled runs (batches of up to `WAKE_BATCH_SIZE`),
       * for a worker that stops when it has no work and must start again as soon as some arrives.
       */
      readonly wakeQueue?: QueueName;
    }
  | {
      readonly kind: 'queue';
      readonly queue: QueueName;
      readonly batchSize: number;
      /**
       * Most batches processed at once (the event source mapping's ScalingConfig MaximumConcurrency, 2-1000); unset:
       * Lambda's own scaling. The local queue source runs min(5, this) batches at once (Lambda starts with five),
       * one at a time without it.
       */
      readonly maxConcurrency?: number;
    }
  | { readonly kind: 'stream' };

/** Messages of a wake queue handed to one invocation at most: a burst of payments wakes a scanner once. */
export const WAKE_BATCH_SIZE = 10;

/** How a queue invokes a worker: its queue trigger, or the wake queue of a scheduled worker; null for none. */
export function queueTriggerOf<Q extends string = QueueName>(
  trigger: Exclude<WorkerTrigger, { readonly kind: 'queue' }> | (Omit<Extract<WorkerTrigger, { readonly kind: 'queue' }>, 'queue'> & { readonly queue: Q }),
): { readonly queue: Q | QueueName; readonly batchSize: number; readonly maxConcurrency?: number } | null {
  if (trigger.kind === 'queue') return trigger;
  if (trigger.kind === 'schedule' && trigger.wakeQueue !== undefined) return { queue: trigger.wakeQueue, batchSize: WAKE_BATCH_SIZE };
  return null;
}

export interface WorkerFunction {
  readonly name: string;
  readonly entry: string;
  readonly trigger: WorkerTrigger;
  /** Seconds; also the visibility timeout floor of its queue. */
  readonly timeoutSeconds: number;
  /**
   * Memory in MB (default 1024, GatewayFunction's). Set lower only for a worker that waits on I/O, from its peak
   * memory as `BENCH_ONLY=cost npm run bench` measures it (docs/benchmarks.md, "Cost").
   */
  readonly memoryMb?: number;
  /** Signs chain transactions with the hot-wallet KMS key (only these workers get kms:Sign). */
  readonly signs?: boolean;
  /** Signs Solana messages with custody's Ed25519 keys (SolanaKeys.grantSign). */
  readonly solanaKeys?: 'sign';
}

export interface QueueDefinition {
  readonly name: QueueName;
  readonly visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the queue's dead-letter queue. */
  readonly maxReceiveCount: number;
}

/** The queue names live beside the event catalogue that names them as consumers (shared/domain/queues.ts). */
export { QUEUE_NAMES, queueUrlEnv };
export type { QueueName };

/** Group routes: `/x` and `/x/...`. API Gateway sends `/x/` to the `/x` route; rawPath keeps the slash. */
const group = (prefix: string): RouteKey[] => [`ANY /${prefix}`, `ANY /${prefix}/{proxy+}`];

export const API_FUNCTIONS: readonly ApiFunction[] = [
  { name: 'auth', entry: 'functions/auth/handler.ts', routes: group('o') },
  { name: 'user', entry: 'functions/user/handler.ts', routes: group('user') },
  {
    name: 'system',
    entry: 'functions/system/handler.ts',
    routes: [...group('status'), ...group('maintenance'), 'ANY /openapi.json', ...group('docs')],
    // The OpenAPI document, and Scalar's API reference that renders it at /docs/ (functions/system/reference-bundle.ts).
    files: ['functions/system/openapi.json', 'node_modules/@scalar/api-reference/dist/browser/standalone.js'],
  },
  { name: 'currencies', entry: 'functions/currencies/handler.ts', routes: [...group('currencies'), ...group('rates')] },
  { name: 'legacy', entry: 'functions/legacy/handler.ts', routes: group('v0') },
  { name: 'payments', entry: 'functions/payments/handler.ts', routes: group('payments') },
  // Refunds (DESIGN section 12): a payment's (more specific than the payments group's greedy route) and `/refunds/...`;
  // the public claim page `/refund-claims/<token>` is a Lambda of its own (it writes the customer's address, so it is
  // not a public-read page, and the merchant's endpoints start without its pages).
  {
    name: 'refunds',
    entry: 'functions/refunds/handler.ts',
    routes: ['ANY /payments/{transaction_id}/refundable', 'ANY /payments/{transaction_id}/refunds', ...group('refunds')],
  },
  // Plans and subscriptions (issue 30).
  { name: 'subscriptions', entry: 'functions/subscriptions/handler.ts', routes: [...group('plans'), ...group('subscriptions')] },
  { name: 'refund-claims', entry: 'functions/refund-claims/handler.ts', routes: group('refund-claims'), access: 'public-page' },
  // Payment links (issue 30): the merchant's endpoints, and the public page `/pay/<slug>` in a Lambda of its own (it
  // opens payments for its visitors, so it is not a public-read page).
  { name: 'payment-links', entry: 'functions/payment-links/handler.ts', routes: group('payment-links') },
  { name: 'payment-link-pages', entry: 'functions/payment-link-pages/handler.ts', routes: group('pay'), access: 'public-page' },
  { name: 'withdrawals', entry: 'functions/withdrawals/handler.ts', routes: group('withdrawal') },
  { name: 'wallets', entry: 'functions/wallets/handler.ts', routes: group('wallets') },
  { name: 'transactions', entry: 'functions/transactions/handler.ts', routes: group('transactions') },
  { name: 'custody', entry: 'functions/custody/handler.ts', routes: group('custody'), solanaKeys: 'create' },
  // Of the custody group, the sync (chain reads on three chains) and the withdrawals (their pricing and address
  // checks) are Lambdas of their own: the custody Lambda starts without either (infra/cdk/api-bundles.ts).
  { name: 'custody-sync', entry: 'functions/custody-sync/handler.ts', routes: ['ANY /custody/accounts/{accountId}/sync'] },
  { name: 'custody-withdrawals', entry: 'functions/custody-withdrawals/handler.ts', routes: ['ANY /custody/withdraw', 'ANY /custody/withdrawals/{proxy+}'] },
  { name: 'checkout', entry: 'functions/checkout/handler.ts', routes: group('checkout'), access: 'public-read' },
  { name: 'not-found', entry: 'functions/not-found/handler.ts', routes: ['$default'] },
];

export const WORKER_FUNCTIONS: readonly WorkerFunction[] = [
  { name: 'rates-refresher', entry: 'functions/rates-refresher/handler.ts', trigger: { kind: 'schedule', everyMinutes: 1 }, timeoutSeconds: 30 },
  {
    name: 'event-router',
    entry: 'functions/event-router/handler.ts',
    trigger: { kind: 'stream' },
    timeoutSeconds: 60,
    // Waits on SQS: 70 MB peak resident set replaying its largest stream batch, from its bundle (docs/benchmarks.md, "Cost").
    // 512 MB rather than 256: half the CPU of 1024 for inflating and parsing the batch, a step every webhook waits on.
    memoryMb: 512,
  },
  {
    name: 'webhook-delivery',
    entry: 'functions/webhook-delivery/handler.ts',
    // Each message runs its event's first attempts (an HTTP call each, cut after 2 s and handed to the retry lane):
    // 50 batches of 10 at once at most, so a slow receiver cannot take the account's concurrency from the API.
    trigger: { kind: 'queue', queue: 'webhook-delivery', batchSize: 10, maxConcurrency: 50 },
    timeoutSeconds: 30,
    // Waits on receivers and DynamoDB: 70 MB peak resident set replaying its largest batch, from its bundle; 512 MB keeps
    // half the CPU of 1024 for signing and TLS to the receivers (docs/benchmarks.md, "Cost").
    memoryMb: 512,
  },
  {
    name: 'webhook-retries',
    entry: 'functions/webhook-retries/handler.ts',
    // The retry lane: slow receivers (up to 10 s an attempt) and the retry schedule, 20 batches of 10 at once at most.
    trigger: { kind: 'queue', queue: 'webhook-retries', batchSize: 10, maxConcurrency: 20 },
    timeoutSeconds: 30,
  },
  {
    name: 'chain-tx',
    entry: 'functions/chain-tx/handler.ts',
    trigger: { kind: 'queue', queue: 'transfers', batchSize: 5 },
    timeoutSeconds: 60,
    // Waits on KMS (which signs), the chain's RPC and DynamoDB: 76 MB peak resident set replaying a sweep's request,
    // from its bundle (docs/benchmarks.md, "Cost").
    memoryMb: 512,
    signs: true,
  },
  {
    name: 'chain-tx-follower',
    entry: 'functions/chain-tx-follower/handler.ts',
    // A follower with nothing open makes one check a run and stops; a chain transaction's request wakes it at once.
    trigger: { kind: 'schedule', everyMinutes: 1, wakeQueue: 'follower-wake' },
    timeoutSeconds: 70,
    // Waits on RPC and DynamoDB: 87 MB peak resident set idle, from its bundle (docs/benchmarks.md, "Cost").
    memoryMb: 256,
    signs: true,
  },
  // Waits on RPC and DynamoDB: 120 MB peak resident set idle, from its bundle; room for the open payments' lists when busy.
  {
    name: 'chain-scanner',
    entry: 'functions/chain-scanner/handler.ts',
    // A scanner with nothing to watch makes one pass a run and stops; a payment's creation wakes it at once.
    trigger: { kind: 'schedule', everyMinutes: 1, wakeQueue: 'scanner-wake' },
    timeoutSeconds: 75,
    memoryMb: 384,
    signs: true,
  },
  {
    name: 'withdrawal-batcher',
    entry: 'functions/withdrawal-batcher/handler.ts',
    trigger: { kind: 'schedule', everyMinutes: 1 },
    timeoutSeconds: 60,
    signs: true,
  },
  { name: 'payment-expirer', entry: 'functions/payment-expirer/handler.ts', trigger: { kind: 'schedule', everyMinutes: 1 }, timeoutSeconds: 30 },
  // Issue 30: subscriptions whose next action is due (a period to open, a cycle paid, past due or lapsed).
  // Pull: reads the collector on chain and requests the charges' batches from the hot wallet (its key's address).
  {
    name: 'subscription-advancer',
    entry: 'functions/subscription-advancer/handler.ts',
    trigger: { kind: 'schedule', everyMinutes: 1 },
    timeoutSeconds: 60,
    signs: true,
  },
  {
    name: 'chain-results',
    entry: 'functions/chain-results/handler.ts',
    trigger: { kind: 'queue', queue: 'chain-results', batchSize: 10 },
    timeoutSeconds: 60,
    // Waits on DynamoDB: 82 MB peak resident set replaying a sweep's result, from its bundle (docs/benchmarks.md, "Cost").
    memoryMb: 512,
    signs: true,
  },
  {
    name: 'wallet-transfers',
    entry: 'functions/wallet-transfers/handler.ts',
    trigger: { kind: 'queue', queue: 'wallet-transfers', batchSize: 10 },
    timeoutSeconds: 30,
  },
  { name: 'monitor', entry: 'functions/monitor/handler.ts', trigger: { kind: 'schedule', everyMinutes: 1 }, timeoutSeconds: 30 },
  // Custody's SOL deposits: every SOL address's token account history, polled for most of each minute.
  // Polls custody's SOL deposits and signs its SOL withdrawals (the accounts' keys and the fee payer).
  {
    name: 'custody-solana',
    entry: 'functions/custody-solana/handler.ts',
    trigger: { kind: 'schedule', everyMinutes: 1 },
    timeoutSeconds: 75,
    // Waits on the Solana RPC and DynamoDB: 82 MB peak resident set idle, from its bundle.
    memoryMb: 256,
    solanaKeys: 'sign',
  },
  // One export per invocation: a large history takes minutes to page through and stream to S3.
  {
    name: 'transaction-exports',
    entry: 'functions/transaction-exports/handler.ts',
    trigger: { kind: 'queue', queue: 'transaction-exports', batchSize: 1 },
    timeoutSeconds: 300,
  },
];

export const QUEUES: readonly QueueDefinition[] = QUEUE_NAMES.map((name) => ({
  name,
  visibilityTimeoutSeconds: name === 'webhook-delivery' || name === 'webhook-retries' ? 60 : 120,
  maxReceiveCount: 5,
}));
