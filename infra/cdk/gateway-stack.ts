import { CfnOutput, Duration, Stack, Token } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { EventSourceMapping, FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../shared/config/config.js';
import { LIMIT_NAMES } from '../../shared/domain/tenant.js';
import type { LimitName } from '../../shared/domain/tenant.js';
import { METRIC_NAMES, METRIC_NAMESPACES } from '../../shared/observability/metrics.js';
import { API_FUNCTIONS, QUEUES, WORKER_FUNCTIONS, queueTriggerOf, queueUrlEnv } from '../definition.js';
import type { ApiFunction, QueueDefinition, QueueName, WorkerFunction } from '../definition.js';
import { ROUTED_RECORDS } from '../table.js';
import { acknowledge, arnToken, policyOf, REASONS } from './acknowledge.js';
import { GatewayAlarms } from './constructs/alarms.js';
import { GatewayDashboard } from './constructs/dashboard.js';
import { EXPORT_OBJECT_PREFIX, GatewayExportsBucket } from './constructs/exports-bucket.js';
import { GatewayFunction } from './constructs/gateway-function.js';
import { GatewayHttpApi } from './constructs/http-api.js';
import type { RouteAccess } from './constructs/http-api.js';
import { GatewayKeys } from './constructs/keys.js';
import { DLQ_REDRIVE_REASON, GatewayQueues, MAX_RETENTION } from './constructs/queues.js';
import { SolanaKeys } from './constructs/solana-keys.js';
import { GatewayTracing } from './constructs/tracing.js';
import { GatewayTable } from './constructs/table.js';

/** Everything the stack is built from; tests inject their own, the app uses infra/definition.ts. */
export interface GatewayDefinition {
  readonly api: readonly ApiFunction[];
  readonly workers: readonly WorkerFunction[];
  readonly queues: readonly QueueDefinition[];
}

export const DEFAULT_DEFINITION: GatewayDefinition = { api: API_FUNCTIONS, workers: WORKER_FUNCTIONS, queues: QUEUES };

/** Where the stream worker's poison records go after bisecting and retrying (design section 6). */
export const STREAM_FAILURE_QUEUE: QueueName = 'event-router-failures';
/** Stream batches retried this many times (each bisected) before the records go to the failure queue. */
export const STREAM_RETRY_ATTEMPTS = 5;
/**
 * Records per event-router invocation: what the stream has, up to 100 (its ten SendMessageBatch calls go out side
 * by side), handed over as soon as read (no batching window: Lambda polls each shard four times a second already).
 */
export const STREAM_BATCH_SIZE = 100;
/** API Gateway gives up on an integration after 29 s; a Lambda running longer only burns money. */
export const API_TIMEOUT = Duration.seconds(28);

/** Repository root: definition entries are relative to it. */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface GatewayStackProps extends StackProps {
  readonly stage: string;
  readonly definition?: GatewayDefinition;
  /** Directory the definition's entries are relative to (default: the repository root). */
  readonly rootDir?: string;
  /** Base URL for links in answers, e.g. behind a custom domain (default: the HTTP API's own URL). */
  readonly publicBaseUrl?: string;
  /** Subscribed to the alarm topic when given. */
  readonly alarmEmail?: string;
  /** JSON-RPC endpoint per EVM network, `{"ETH":"https://..."}`, for the chain workers. */
  readonly evmRpcUrls?: Readonly<Record<string, string>>;
  /**
   * Where deposit addresses come from and where chains are reached (shared/config/config.ts): `FORWARDER_FACTORIES`
   * (`{"ETH":"0x...","TRX":"T..."}`), `FORWARDER_IMPLEMENTATION_TRX`, `TRON_API_URL` (a TronGrid-compatible API)
   * and `TOKEN_CONTRACTS` overrides. Without a factory a network takes no payments. `SOLANA_RPC_URL`: a Solana
   * JSON-RPC endpoint (custody's SOL addresses; off without it). `BTC_API_URL`: an Esplora-compatible API (Bitcoin
   * off without it) and `BTC_NETWORK`, the Bitcoin network it serves (default from the stage: prod mainnet).
   */
  readonly chains?: {
    readonly forwarderFactories?: Readonly<Record<string, string>>;
    readonly forwarderImplementationTrx?: string;
    readonly tronApiUrl?: string;
    readonly btcApiUrl?: string;
    readonly btcNetwork?: 'mainnet' | 'testnet';
    readonly solanaRpcUrl?: string;
    readonly tokenContracts?: Readonly<Record<string, string>>;
    /** `WITHDRAWAL_BATCH_CONTRACT`: the hot wallet's BatchPayout contract, the same address on every EVM network. */
    readonly withdrawalBatchContract?: string;
    /** `SUBSCRIPTION_COLLECTOR_CONTRACT`: the SubscriptionCollector charged by the hot wallet, the same address on every EVM network. */
    readonly subscriptionCollectorContract?: string;
  };
  /** `HOT_WALLET_MIN_BALANCE`: minimum native balance of the hot wallet per network, `{"ETH":"0.05"}` (default none). */
  readonly hotWalletMinBalance?: Readonly<Record<string, string>>;
  /** `SWEEP_STUCK_MINUTES` (the handlers' default when not given: 15). */
  readonly sweepStuckMinutes?: number;
  /** `WITHDRAWAL_STUCK_MINUTES` (the handlers' default when not given: 30). */
  readonly withdrawalStuckMinutes?: number;
  /** `REDRIVE_AFTER_MINUTES`: the monitor's re-drive deadline for accepted work (the handlers' default when not given: 10). */
  readonly redriveAfterMinutes?: number;
  /**
   * The platform's default tenant limits in USD (`DEFAULT_MAX_PAYMENT_AMOUNT` and its siblings), by their names in
   * the tenant record: `{"max_payment_amount":"50000.00","daily_withdrawal_limit":"none"}`. Unset: the handlers' defaults.
   */
  readonly platformLimits?: Readonly<Partial<Record<LimitName, string>>>;
}

/** The workers that print the operational metrics the stack alarms on (shared/observability/metrics.ts). */
export const MONITOR_WORKER = 'monitor';
export const FOLLOWER_WORKER = 'chain-tx-follower';

const pascal = (name: string): string => name.replace(/(^|[^a-zA-Z0-9]+)([a-zA-Z0-9])/g, (_m, _sep: string, c: string) => c.toUpperCase());

/** The webhook workers (both lanes) decrypt the stored webhook secrets they sign deliveries with. */
const WEBHOOK_LANES: readonly string[] = ['webhook-delivery', 'webhook-retries'];
const needsSecretsKey = (worker: WorkerFunction): boolean =>
  WEBHOOK_LANES.includes(worker.name) || (worker.trigger.kind === 'queue' && WEBHOOK_LANES.includes(worker.trigger.queue));

/**
 * The API functions that read the hot wallet's public key (never sign): payments (a BTC payment's deposit address is a
 * P2WSH output over it) and subscriptions (a pull subscription's mandate names the hot wallet as its payee).
 */
export const HOT_KEY_READERS: readonly string[] = ['payments', 'subscriptions'];

/** Transaction exports: the worker writes the files, the transactions API presigns their downloads; only they see the bucket. */
export const EXPORTS_WORKER = 'transaction-exports';
export const EXPORTS_API = 'transactions';
/** Custody's Solana keys: one per account, created at run time, so their grants name `key/*` under conditions. */
/** The finding of the statements on `key/*`, named as cdk-nag renders the ARN: the stack's environment where known. */
const solanaKeysFinding = (stack: Stack): string => {
  const known = (value: string, pseudo: string): string => (Token.isUnresolved(value) ? `<AWS::${pseudo}>` : value);
  return `AwsSolutions-IAM5[Resource::arn:${known(stack.partition, 'Partition')}:kms:${known(stack.region, 'Region')}:${known(stack.account, 'AccountId')}:key/*]`;
};
const SOLANA_KEYS_REASON =
  "Custody's Ed25519 keys are created at run time, one per Solana account, so no ARN is known at deploy: the statements on key/* hold only under conditions on the key spec (ECC_NIST_EDWARDS25519), usage and the gateway's own tags, which only these keys carry (constructs/solana-keys.ts).";
const EXPORT_FILES_REASON =
  'Export files are named per tenant and job at run time (shared/domain/exports.ts exportObjectKey): the grant covers the exports/ prefix of the one exports bucket, nothing else.';
const writesExports = (worker: WorkerFunction): boolean =>
  worker.name === EXPORTS_WORKER || (worker.trigger.kind === 'queue' && worker.trigger.queue === 'transaction-exports');

export class GatewayStack extends Stack {
  readonly functions = new Map<string, GatewayFunction>();

  constructor(scope: Construct, id: string, props: GatewayStackProps) {
    super(scope, id, props);
    const { stage } = props;
    const definition = props.definition ?? DEFAULT_DEFINITION;
    const rootDir = props.rootDir ?? REPO_ROOT;
    assertUniqueNames([...definition.api, ...definition.workers]);

    const { table } = new GatewayTable(this, 'Data', { deletionProtection: stage === 'prod' });
    const keys = new GatewayKeys(this, 'Keys', { stage, solanaFeePayer: props.chains?.solanaRpcUrl !== undefined });
    // Custody's per-address Ed25519 keys, made at run time by the custody API and used by the Solana signer.
    const solanaKeys = new SolanaKeys(this, 'SolanaKeys', { stage });
    const exportsBucket = new GatewayExportsBucket(this, 'Exports');
    const queues = new GatewayQueues(this, 'Queues', {
      queues: definition.queues,
      consumerTimeoutSeconds: consumerTimeouts(definition.workers),
    });
    const api = new GatewayHttpApi(this, 'Api', { stage });
    const alarms = new GatewayAlarms(this, 'Alarms', { stage, ...(props.alarmEmail ? { email: props.alarmEmail } : {}) });
    new GatewayTracing(this, 'Tracing', { stage });
    const monitoring = monitoringEnvironment(props);

    const environment: Record<string, string> = {
      TABLE_NAME: table.tableName,
      STAGE: stage,
      SECRETS_KEY_ID: keys.secretsKey.keyId,
      // Plain-HTTP loopback callbacks exist for the local stack only.
      ALLOW_LOOPBACK_CALLBACKS: 'false',
      PUBLIC_BASE_URL: props.publicBaseUrl ?? api.url,
      // The hot wallet's key id, not a grant: what a deployment serves follows from it (withdrawals on every chain, BTC
      // payments), and every function behind the pipeline must agree. Only signers may sign; HOT_KEY_READERS read its public key.
      HOT_WALLET_KEY_ID: keys.signingKey.keyId,
      EVM_RPC_URLS: JSON.stringify(props.evmRpcUrls ?? {}),
      FORWARDER_FACTORIES: JSON.stringify(props.chains?.forwarderFactories ?? {}),
      ...(props.chains?.forwarderImplementationTrx ? { FORWARDER_IMPLEMENTATION_TRX: props.chains.forwarderImplementationTrx } : {}),
      ...(props.chains?.tronApiUrl ? { TRON_API_URL: props.chains.tronApiUrl } : {}),
      ...(props.chains?.btcApiUrl ? { BTC_API_URL: props.chains.btcApiUrl } : {}),
      ...(props.chains?.btcNetwork ? { BTC_NETWORK: props.chains.btcNetwork } : {}),
      ...(props.chains?.solanaRpcUrl ? { SOLANA_RPC_URL: props.chains.solanaRpcUrl } : {}),
      // Every function reads it (SOL withdrawals are served with it); only the Solana signer may use the key.
      ...(keys.solanaFeePayerKey ? { SOLANA_FEE_PAYER_KEY_ID: keys.solanaFeePayerKey.keyId } : {}),
      ...(props.chains?.tokenContracts ? { TOKEN_CONTRACTS: JSON.stringify(props.chains.tokenContracts) } : {}),
      ...(props.chains?.withdrawalBatchContract ? { WITHDRAWAL_BATCH_CONTRACT: props.chains.withdrawalBatchContract } : {}),
      ...(props.chains?.subscriptionCollectorContract ? { SUBSCRIPTION_COLLECTOR_CONTRACT: props.chains.subscriptionCollectorContract } : {}),
      ...monitoring,
      ...limitsEnvironment(props),
      ...Object.fromEntries(queues.all.map((q) => [queueUrlEnv(q.definition.name), q.queue.queueUrl])),
    };

    /** Grants every function gets: its data, and sending to any queue (outbox fan-out, re-enqueue). */
    const tableIndexes = `AwsSolutions-IAM5[Resource::${arnToken(table)}/index/*]`;
    /** The secrets key's grantEncryptDecrypt, with its wildcard actions acknowledged. */
    const grantSecrets = (fn: GatewayFunction): void => {
      keys.secretsKey.grantEncryptDecrypt(fn);
      const reason = `grantEncryptDecrypt on the secrets key (webhook and client secrets): %s stands for its variants (with or without plaintext, and the ReEncryptFrom/To pair), on that one key's ARN only.`;
      acknowledge(policyOf(fn), 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]', reason.replace('%s', 'kms:GenerateDataKey*'));
      acknowledge(policyOf(fn), 'AwsSolutions-IAM5[Action::kms:ReEncrypt*]', reason.replace('%s', 'kms:ReEncrypt*'));
    };
    /** Functions only ever invoked synchronously (API Gateway, event source mappings): a function DLQ would see nothing. */
    const synchronous = (fn: GatewayFunction): void => acknowledge(fn.node.defaultChild ?? fn, 'Serverless-LambdaDLQ', REASONS.syncInvocation);
    const routeAccess = (def: ApiFunction): RouteAccess =>
      def.access !== undefined ? 'public' : def.name === 'auth' ? 'token-endpoint' : def.routes.every((r) => r === '$default') ? 'fallback' : 'oauth';

    const baseline = (name: string, fn: GatewayFunction): void => {
      this.functions.set(name, fn);
      table.grantReadWriteData(fn);
      acknowledge(policyOf(fn), tableIndexes, REASONS.tableIndexes);
      for (const q of queues.all) q.queue.grantSendMessages(fn);
    };
    // The API functions' failures, handled (a generic 500) or not, are the API's 5xx: one alarm for all of them.
    alarms.watchApi(api.api);

    /** What a public page's function may know: the table, the stage and the token contracts its payment URIs name. */
    const publicEnvironment: Record<string, string> = {
      TABLE_NAME: table.tableName,
      STAGE: stage,
      ...(props.chains?.tokenContracts ? { TOKEN_CONTRACTS: JSON.stringify(props.chains.tokenContracts) } : {}),
    };

    for (const def of definition.api) {
      if (def.access === 'public-read') {
        const fn = new GatewayFunction(this, `Api${pascal(def.name)}`, {
          entry: def.entry,
          rootDir,
          description: `Payment gateway (${stage}) public pages: ${def.name}`,
          timeout: API_TIMEOUT,
          environment: publicEnvironment,
          files: def.files,
          sourceMapsAtLoad: false,
        });
        this.functions.set(def.name, fn);
        table.grantReadData(fn);
        acknowledge(policyOf(fn), tableIndexes, REASONS.tableIndexes);
        synchronous(fn);
        api.addRoutes(def.name, fn, def.routes, routeAccess(def));
        continue;
      }
      const fn = new GatewayFunction(this, `Api${pascal(def.name)}`, {
        entry: def.entry,
        rootDir,
        description: `Payment gateway (${stage}) API: ${def.name}`,
        timeout: API_TIMEOUT,
        environment,
        files: def.files,
        sourceMapsAtLoad: false,
      });
      baseline(def.name, fn);
      synchronous(fn);
      grantSecrets(fn);
      if (def.solanaKeys === 'create') {
        solanaKeys.grantCreate(fn);
        acknowledge(policyOf(fn), solanaKeysFinding(this), SOLANA_KEYS_REASON);
        acknowledge(
          policyOf(fn),
          'AwsSolutions-IAM5[Resource::*]',
          `${REASONS.xray} And kms:CreateKey (with the TagResource it needs) acts on a key that does not exist yet, so it has no ARN to name: the statements are conditioned on the Ed25519 key spec, SIGN_VERIFY usage, AWS-made key material and the gateway's own tags (constructs/solana-keys.ts).`,
        );
      }
      if (HOT_KEY_READERS.includes(def.name)) keys.grantPublicKey(fn);
      if (def.name === EXPORTS_API) {
        exportsBucket.grantReadExports(fn);
        acknowledge(policyOf(fn), `AwsSolutions-IAM5[Resource::${arnToken(exportsBucket.bucket)}/${EXPORT_OBJECT_PREFIX}*]`, EXPORT_FILES_REASON);
        fn.addEnvironment('EXPORT_BUCKET', exportsBucket.bucket.bucketName);
      }
      api.addRoutes(def.name, fn, def.routes, routeAccess(def));
    }

    // The scheduled workers are the only functions invoked asynchronously (by EventBridge): an event EventBridge
    // could not deliver, or one the function failed after Lambda's own retries, lands here and pages.
    const scheduleFailures = definition.workers.some((w) => w.trigger.kind === 'schedule')
      ? new Queue(this, 'ScheduleFailures', { retentionPeriod: MAX_RETENTION, encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true })
      : undefined;
    if (scheduleFailures) {
      acknowledge(scheduleFailures, 'Serverless-SQSRedrivePolicy', DLQ_REDRIVE_REASON);
      acknowledge(
        scheduleFailures,
        'AwsSolutions-SQS3',
        "The dead-letter queue of the schedules (EventBridge target DLQ and the scheduled functions' DLQ): SQS3 recognises only queues named in another queue's redrive policy as DLQs.",
      );
      alarms.watchQueueDepth('schedule-failures-depth', 'A scheduled run was not delivered or failed for good (schedule failures queue)', scheduleFailures);
    }

    let failureAlarmed = false;
    for (const def of definition.workers) {
      const fn = new GatewayFunction(this, `Worker${pascal(def.name)}`, {
        entry: def.entry,
        rootDir,
        description: `Payment gateway (${stage}) worker: ${def.name}`,
        timeout: Duration.seconds(def.timeoutSeconds),
        ...(def.memoryMb !== undefined ? { memorySize: def.memoryMb } : {}),
        environment,
        ...(def.trigger.kind === 'schedule' && scheduleFailures ? { deadLetterQueue: scheduleFailures } : {}),
      });
      baseline(def.name, fn);
      alarms.watchFunction(def.name, fn);
      if (def.trigger.kind !== 'schedule') synchronous(fn);
      if (def.signs) keys.grantSign(fn);
      if (def.solanaKeys === 'sign') {
        solanaKeys.grantSign(fn);
        acknowledge(policyOf(fn), solanaKeysFinding(this), SOLANA_KEYS_REASON);
        keys.grantSolanaFeePayer(fn);
      }
      if (needsSecretsKey(def)) grantSecrets(fn);
      if (writesExports(def)) {
        exportsBucket.grantWriteExports(fn);
        acknowledge(policyOf(fn), `AwsSolutions-IAM5[Resource::${arnToken(exportsBucket.bucket)}/${EXPORT_OBJECT_PREFIX}*]`, EXPORT_FILES_REASON);
        fn.addEnvironment('EXPORT_BUCKET', exportsBucket.bucket.bucketName);
      }

      const trigger = def.trigger;
      // Its queue, or the queue that wakes a scheduled worker between its runs.
      const fromQueue = queueTriggerOf(trigger);
      if (fromQueue) {
        fn.addEventSource(
          new SqsEventSource(queues.get(fromQueue.queue).queue, {
            batchSize: fromQueue.batchSize,
            // A batch is handed over as soon as messages are received (at most 10: no window needed).
            maxBatchingWindow: Duration.seconds(0),
            reportBatchItemFailures: true,
            ...(fromQueue.maxConcurrency !== undefined ? { maxConcurrency: fromQueue.maxConcurrency } : {}),
          }),
        );
        for (const mapping of fn.node.children.filter((c) => c instanceof EventSourceMapping)) {
          acknowledge(
            mapping,
            'Serverless-LambdaEventSourceMappingDestination',
            `Lambda offers on-failure destinations for stream and Kafka sources only, not SQS: a message that keeps failing moves to the ${fromQueue.queue} queue's dead-letter queue by its redrive policy (maxReceiveCount), which alarms.`,
          );
        }
      }
      switch (trigger.kind) {
        case 'schedule':
          new Rule(this, `${fn.node.id}Schedule`, {
            description: `Runs ${def.name} every ${trigger.everyMinutes} minute(s)`,
            schedule: Schedule.rate(Duration.minutes(trigger.everyMinutes)),
            // A missed tick is not worth replaying once the next one is due.
            targets: [
              new LambdaFunction(fn, {
                retryAttempts: 2,
                maxEventAge: Duration.minutes(Math.max(1, trigger.everyMinutes)),
                ...(scheduleFailures ? { deadLetterQueue: scheduleFailures } : {}),
              }),
            ],
          });
          break;
        case 'queue':
          break; // Its event source, above.
        case 'stream': {
          const failures = queues.get(STREAM_FAILURE_QUEUE).queue;
          fn.addEventSource(
            new DynamoEventSource(table, {
              startingPosition: StartingPosition.LATEST,
              batchSize: STREAM_BATCH_SIZE,
              maxBatchingWindow: Duration.seconds(0),
              bisectBatchOnError: true,
              retryAttempts: STREAM_RETRY_ATTEMPTS,
              reportBatchItemFailures: true,
              onFailure: new SqsDlq(failures),
              // Counters, tokens and rate windows write the table too: only the routed records reach the router.
              filters: ROUTED_RECORDS.map((r) =>
                FilterCriteria.filter({
                  eventName: FilterRule.or(...r.eventNames),
                  dynamodb: { Keys: { [r.key]: { S: FilterRule.beginsWith(r.prefix) } } },
                }),
              ),
            }),
          );
          // A record landing in the failure queue is an event nobody heard of (one alarm, however many streams).
          if (!failureAlarmed) {
            alarms.watchQueueDepth(`${STREAM_FAILURE_QUEUE}-depth`, 'Stream records failed for good', failures);
            failureAlarmed = true;
          }
          break;
        }
        default:
          throw new Error(`Unknown trigger of worker "${def.name}"`);
      }
    }

    // A deployment updates every queue's consumers before the stream workers that send to them: a consumer reads the
    // messages of the code before and after it (the router's one message a change, a new queue's), so no message of
    // a new router reaches an old consumer.
    const consumers = definition.workers.filter((w) => queueTriggerOf(w.trigger) !== null);
    for (const producer of definition.workers.filter((w) => w.trigger.kind === 'stream')) {
      for (const consumer of consumers) this.functions.get(producer.name)?.node.addDependency(this.functions.get(consumer.name) as GatewayFunction);
    }

    for (const q of queues.all) alarms.watchDeadLetterQueue(q.definition.name, q.deadLetterQueue);
    operationalAlarms(alarms, definition.workers);
    const follower = this.functions.get(FOLLOWER_WORKER);
    new GatewayDashboard(this, 'Dashboard', {
      stage,
      api: api.api,
      routes: definition.api.flatMap((d) => d.routes),
      queues: queues.all,
      ...(follower ? { hotWalletLogs: follower.logGroup } : {}),
    });

    new CfnOutput(this, 'ApiUrl', { description: 'Base URL of the HTTP API', value: api.url });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'SigningKeyId', { description: 'Hot-wallet signing key (secp256k1)', value: keys.signingKey.keyId });
    new CfnOutput(this, 'SecretsKeyId', { value: keys.secretsKey.keyId });
    if (keys.solanaFeePayerKey) {
      new CfnOutput(this, 'SolanaFeePayerKeyId', { description: 'Solana fee payer (Ed25519): fund its address with SOL', value: keys.solanaFeePayerKey.keyId });
    }
    new CfnOutput(this, 'AlarmTopicArn', { value: alarms.topic.topicArn });
    new CfnOutput(this, 'ExportBucketName', { description: 'Transaction export files (kept 7 days)', value: exportsBucket.bucket.bucketName });
  }
}

/**
 * Alarms on the gateway's own metrics (EMF lines, shared/observability/metrics.ts), each on the metric printed
 * without dimensions (the worst network), Maximum over 5 minutes, >= 1, notifying the alarm topic. Each exists
 * only when the worker that prints its metric is deployed. Missing data, deliberately:
 * - stuck sweeps / withdrawals / accepted work: BREACHING. The monitor prints them every minute for every network, 0 included,
 *   so five silent minutes mean nobody is watching the money in flight (monitor not running, or its reads
 *   failing, which its Errors alarm also reports); that must page, not look green. Consequence: a freshly
 *   created alarm may notify once before the monitor's first run reaches it.
 * - insufficient gas: NOT_BREACHING. Printed only while requests wait for gas, so silence is the good case.
 * - hot wallet below minimum: NOT_BREACHING. Printed by a follower run only for a network whose balance is under its
 *   minimum, so silence is the good case (or the balance read failed: logged; the follower's own failures have its
 *   Errors alarm, and a wallet that really runs dry shows as insufficient gas).
 */
function operationalAlarms(alarms: GatewayAlarms, workers: readonly WorkerFunction[]): void {
  const deployed = new Set(workers.map((w) => w.name));
  if (deployed.has(MONITOR_WORKER)) {
    alarms.watchMetric('payment-sweeps-stuck', {
      description: 'Payments stuck in "sending": a sweep has not completed for longer than SWEEP_STUCK_MINUTES (see the monitor\'s "stuck work" log line)',
      namespace: METRIC_NAMESPACES.operations,
      metricName: METRIC_NAMES.sweepsStuck,
      treatMissingData: TreatMissingData.BREACHING,
    });
    alarms.watchMetric('accepted-work-stuck', {
      description:
        'Accepted work (a wallet transfer, an export, a withdrawal whose chain result is known) not moved a deadline after the monitor sent its message again (REDRIVE_AFTER_MINUTES; see the monitor\'s "accepted work stuck" log line)',
      namespace: METRIC_NAMESPACES.operations,
      metricName: METRIC_NAMES.acceptedWorkStuck,
      treatMissingData: TreatMissingData.BREACHING,
    });
    alarms.watchMetric('withdrawals-stuck', {
      description: 'Withdrawals stuck in "processing" for longer than WITHDRAWAL_STUCK_MINUTES (see the monitor\'s "stuck work" log line)',
      namespace: METRIC_NAMESPACES.operations,
      metricName: METRIC_NAMES.withdrawalsStuck,
      treatMissingData: TreatMissingData.BREACHING,
    });
  }
  if (deployed.has(FOLLOWER_WORKER)) {
    alarms.watchMetric('hot-wallet-insufficient-gas', {
      description: 'Chain transactions wait because the hot wallet cannot pay for gas: fund it',
      namespace: METRIC_NAMESPACES.chainTx,
      metricName: METRIC_NAMES.insufficientGas,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarms.watchMetric('hot-wallet-below-minimum', {
      description:
        "The hot wallet's native balance is below HOT_WALLET_MIN_BALANCE on a network (its 'hot wallet balance' log lines, the dashboard's hot wallet graph): fund it",
      namespace: METRIC_NAMESPACES.chainTx,
      metricName: METRIC_NAMES.hotWalletBelowMinimum,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}

/**
 * The monitoring settings as the handlers read them (shared/config/config.ts), checked here so a bad value
 * fails the synth instead of every function's cold start. Unset: the handlers' defaults.
 */
function monitoringEnvironment(props: GatewayStackProps): Record<string, string> {
  const env: Record<string, string> = {};
  if (props.hotWalletMinBalance !== undefined) {
    for (const [network, amount] of Object.entries(props.hotWalletMinBalance)) {
      if (!/^\d+(\.\d+)?$/.test(amount)) throw new Error(`hotWalletMinBalance.${network}: "${amount}" is not a decimal amount`);
    }
    env.HOT_WALLET_MIN_BALANCE = JSON.stringify(props.hotWalletMinBalance);
  }
  const minutes = (name: string, value: number | undefined): void => {
    if (value === undefined) return;
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name}: ${value} is not a whole number of minutes >= 1`);
    env[name] = String(value);
  };
  minutes('SWEEP_STUCK_MINUTES', props.sweepStuckMinutes);
  minutes('WITHDRAWAL_STUCK_MINUTES', props.withdrawalStuckMinutes);
  minutes('REDRIVE_AFTER_MINUTES', props.redriveAfterMinutes);
  return env;
}

/** The platform limits as the configuration keys the handlers read, checked by the handlers' own parser. */
function limitsEnvironment(props: GatewayStackProps): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(props.platformLimits ?? {})) {
    if (!(LIMIT_NAMES as readonly string[]).includes(name)) throw new Error(`platformLimits.${name}: not one of ${LIMIT_NAMES.join(', ')}`);
    if (value !== undefined) env[`DEFAULT_${name.toUpperCase()}`] = value;
  }
  try {
    parseConfig({ TABLE_NAME: 'synth', ...env });
  } catch (error) {
    throw new Error(`platformLimits: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return env;
}

function assertUniqueNames(functions: readonly { readonly name: string }[]): void {
  const seen = new Set<string>();
  for (const { name } of functions) {
    if (seen.has(name)) throw new Error(`Function "${name}" is defined twice`);
    seen.add(name);
  }
}

/** Longest timeout among each queue's consumers: the queue's visibility timeout is derived from it. */
function consumerTimeouts(workers: readonly WorkerFunction[]): Map<QueueName, number> {
  const result = new Map<QueueName, number>();
  for (const worker of workers) {
    const name = queueTriggerOf(worker.trigger)?.queue;
    if (name === undefined) continue;
    result.set(name, Math.max(result.get(name) ?? 0, worker.timeoutSeconds));
  }
  return result;
}
