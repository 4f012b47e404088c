import { CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { API_FUNCTIONS, QUEUES, WORKER_FUNCTIONS, queueUrlEnv } from '../definition.js';
import type { ApiFunction, QueueDefinition, QueueName, WorkerFunction } from '../definition.js';
import { OUTBOX_KEY_PREFIX, TABLE } from '../table.js';
import { GatewayAlarms } from './constructs/alarms.js';
import { GatewayFunction } from './constructs/gateway-function.js';
import { GatewayHttpApi } from './constructs/http-api.js';
import { GatewayKeys } from './constructs/keys.js';
import { GatewayQueues } from './constructs/queues.js';
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
}

const pascal = (name: string): string =>
  name.replace(/(^|[^a-zA-Z0-9]+)([a-zA-Z0-9])/g, (_m, _sep: string, c: string) => c.toUpperCase());

/** The webhook worker decrypts the stored webhook secrets it signs deliveries with. */
const needsSecretsKey = (worker: WorkerFunction): boolean =>
  worker.name === 'webhook-delivery' || (worker.trigger.kind === 'queue' && worker.trigger.queue === 'webhook-delivery');

export class GatewayStack extends Stack {
  readonly functions = new Map<string, GatewayFunction>();

  constructor(scope: Construct, id: string, props: GatewayStackProps) {
    super(scope, id, props);
    const { stage } = props;
    const definition = props.definition ?? DEFAULT_DEFINITION;
    const rootDir = props.rootDir ?? REPO_ROOT;
    assertUniqueNames([...definition.api, ...definition.workers]);

    const { table } = new GatewayTable(this, 'Data', { deletionProtection: stage === 'prod' });
    const keys = new GatewayKeys(this, 'Keys', { stage });
    const queues = new GatewayQueues(this, 'Queues', {
      queues: definition.queues,
      consumerTimeoutSeconds: consumerTimeouts(definition.workers),
    });
    const api = new GatewayHttpApi(this, 'Api', { stage });
    const alarms = new GatewayAlarms(this, 'Alarms', { stage, ...(props.alarmEmail ? { email: props.alarmEmail } : {}) });

    const environment: Record<string, string> = {
      TABLE_NAME: table.tableName,
      STAGE: stage,
      SECRETS_KEY_ID: keys.secretsKey.keyId,
      // Plain-HTTP loopback callbacks exist for the local stack only.
      ALLOW_LOOPBACK_CALLBACKS: 'false',
      PUBLIC_BASE_URL: props.publicBaseUrl ?? api.url,
      EVM_RPC_URLS: JSON.stringify(props.evmRpcUrls ?? {}),
      ...Object.fromEntries(queues.all.map((q) => [queueUrlEnv(q.definition.name), q.queue.queueUrl])),
    };

    /** Grants every function gets: its data, and sending to any queue (outbox fan-out, re-enqueue). */
    const baseline = (name: string, fn: GatewayFunction): void => {
      this.functions.set(name, fn);
      table.grantReadWriteData(fn);
      for (const q of queues.all) q.queue.grantSendMessages(fn);
      alarms.watchFunction(name, fn);
    };

    for (const def of definition.api) {
      const fn = new GatewayFunction(this, `Api${pascal(def.name)}`, {
        entry: def.entry,
        rootDir,
        description: `Payment gateway (${stage}) API: ${def.name}`,
        timeout: API_TIMEOUT,
        environment,
      });
      baseline(def.name, fn);
      keys.secretsKey.grantEncryptDecrypt(fn);
      api.addRoutes(def.name, fn, def.routes);
    }

    let failureAlarmed = false;
    for (const def of definition.workers) {
      const fn = new GatewayFunction(this, `Worker${pascal(def.name)}`, {
        entry: def.entry,
        rootDir,
        description: `Payment gateway (${stage}) worker: ${def.name}`,
        timeout: Duration.seconds(def.timeoutSeconds),
        environment,
      });
      baseline(def.name, fn);
      if (def.signs) {
        keys.grantSign(fn);
        fn.addEnvironment('HOT_WALLET_KEY_ID', keys.signingKey.keyId);
      }
      if (needsSecretsKey(def)) keys.secretsKey.grantEncryptDecrypt(fn);

      const trigger = def.trigger;
      switch (trigger.kind) {
        case 'schedule':
          new Rule(this, `${fn.node.id}Schedule`, {
            description: `Runs ${def.name} every ${trigger.everyMinutes} minute(s)`,
            schedule: Schedule.rate(Duration.minutes(trigger.everyMinutes)),
            // A missed tick is not worth replaying once the next one is due.
            targets: [new LambdaFunction(fn, { retryAttempts: 2, maxEventAge: Duration.minutes(Math.max(1, trigger.everyMinutes)) })],
          });
          break;
        case 'queue':
          fn.addEventSource(
            new SqsEventSource(queues.get(trigger.queue).queue, { batchSize: trigger.batchSize, reportBatchItemFailures: true }),
          );
          break;
        case 'stream': {
          const failures = queues.get(STREAM_FAILURE_QUEUE).queue;
          fn.addEventSource(
            new DynamoEventSource(table, {
              startingPosition: StartingPosition.LATEST,
              bisectBatchOnError: true,
              retryAttempts: STREAM_RETRY_ATTEMPTS,
              reportBatchItemFailures: true,
              onFailure: new SqsDlq(failures),
              // Counters, tokens and rate windows write the table too: only new outbox items are events.
              filters: [
                FilterCriteria.filter({
                  eventName: FilterRule.isEqual('INSERT'),
                  dynamodb: { Keys: { [TABLE.partitionKey]: { S: FilterRule.beginsWith(OUTBOX_KEY_PREFIX) } } },
                }),
              ],
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

    for (const q of queues.all) alarms.watchDeadLetterQueue(q.definition.name, q.deadLetterQueue);

    new CfnOutput(this, 'ApiUrl', { description: 'Base URL of the HTTP API', value: api.url });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'SigningKeyId', { description: 'Hot-wallet signing key (secp256k1)', value: keys.signingKey.keyId });
    new CfnOutput(this, 'SecretsKeyId', { value: keys.secretsKey.keyId });
    new CfnOutput(this, 'AlarmTopicArn', { value: alarms.topic.topicArn });
  }
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
    if (worker.trigger.kind !== 'queue') continue;
    const name = worker.trigger.queue;
    result.set(name, Math.max(result.get(name) ?? 0, worker.timeoutSeconds));
  }
  return result;
}
