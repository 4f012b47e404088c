import type { CfnElement } from 'aws-cdk-lib';
import { API_FUNCTIONS, QUEUES, queueUrlEnv } from '../../infra/definition.js';
import type { WorkerFunction } from '../../infra/definition.js';
import { OUTBOX_KEY_PREFIX, TABLE } from '../../infra/table.js';
import { STREAM_FAILURE_QUEUE, STREAM_RETRY_ATTEMPTS } from '../../infra/cdk/gateway-stack.js';
import type { GatewayDefinition } from '../../infra/cdk/gateway-stack.js';
import { MAX_RETENTION, VISIBILITY_PER_CONSUMER_TIMEOUT } from '../../infra/cdk/constructs/queues.js';
import { buildStack, envRef, outputRef, props, referencedIds, refId, resources, roleOf, statements } from './support.js';

/** One worker of each trigger kind; the queue consumer's timeout is long enough to raise its queue's visibility. */
const scheduled: WorkerFunction = {
  name: 'payment-expirer',
  entry: 'functions/payment-expirer/handler.ts',
  trigger: { kind: 'schedule', everyMinutes: 5 },
  timeoutSeconds: 60,
  signs: true,
};
const consumer: WorkerFunction = {
  name: 'webhook-delivery',
  entry: 'functions/webhook-delivery/handler.ts',
  trigger: { kind: 'queue', queue: 'webhook-delivery', batchSize: 7 },
  timeoutSeconds: 45,
};
const router: WorkerFunction = { name: 'event-router', entry: 'functions/event-router/handler.ts', trigger: { kind: 'stream' }, timeoutSeconds: 30 };
const apiFunction = API_FUNCTIONS[0];
if (!apiFunction) throw new Error('API_FUNCTIONS is empty');
const definition: GatewayDefinition = { api: [apiFunction], workers: [scheduled, consumer, router], queues: QUEUES };

const { stack, template } = buildStack(definition);

const functionId = (name: string): string => {
  const fn = stack.functions.get(name);
  if (!fn) throw new Error(`No function ${name}`);
  return stack.getLogicalId(fn.node.defaultChild as CfnElement);
};
const queueId = (name: (typeof QUEUES)[number]['name']): string => envRef(template, functionId(apiFunction.name), queueUrlEnv(name));
const mappings = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping')).map((m) => m.Properties ?? {});
const mappingOf = (name: string): Record<string, unknown> | undefined => mappings.find((m) => refId(m.FunctionName) === functionId(name));
const statementsOf = (name: string) => statements(template).filter((s) => s.roles.includes(roleOf(template, functionId(name))));

describe('every worker', () => {
  test.each(definition.workers.map((w) => [w.name, w]))('%s is a Node.js 24 arm64 Lambda with its own timeout', (name, w) => {
    expect(props(template, functionId(name))).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: w.timeoutSeconds });
  });

  test('has an Errors alarm', () => {
    const alarms = Object.values(resources(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties ?? {});
    for (const w of definition.workers) {
      expect(alarms.filter((a) => a.MetricName === 'Errors' && referencedIds(a.Dimensions).has(functionId(w.name)))).toHaveLength(1);
    }
  });

  test('only workers marked as signers may use the signing key, and only to Sign and GetPublicKey', () => {
    const signingKey = outputRef(template, 'SigningKeyId');
    const onKey = statements(template).filter((s) => referencedIds(s.resource).has(signingKey));
    expect(onKey.length).toBeGreaterThan(0);
    for (const s of onKey) {
      expect(s.effect).toBe('Allow');
      expect([...s.actions].sort()).toEqual(['kms:GetPublicKey', 'kms:Sign']);
    }
    const holders = new Set(onKey.flatMap((s) => s.roles));
    expect(holders).toEqual(new Set(definition.workers.filter((w) => w.signs).map((w) => roleOf(template, functionId(w.name)))));
    expect(holders.has(roleOf(template, functionId(router.name)))).toBe(false);
    // No statement anywhere hands out KMS rights on every key.
    const wildcard = statements(template).filter((s) => s.resource === '*' && s.actions.some((a) => a.startsWith('kms:')));
    expect(wildcard).toEqual([]);
  });

  test('only the webhook worker (besides the API) may decrypt stored secrets', () => {
    const secretsKey = outputRef(template, 'SecretsKeyId');
    const canDecrypt = (name: string): boolean =>
      statementsOf(name).some((s) => referencedIds(s.resource).has(secretsKey) && s.actions.includes('kms:Decrypt'));
    expect(canDecrypt(consumer.name)).toBe(true);
    expect(canDecrypt(scheduled.name)).toBe(false);
    expect(canDecrypt(router.name)).toBe(false);
  });
});

describe('schedule trigger', () => {
  test('an EventBridge rule runs the worker at its rate', () => {
    const rules = Object.values(resources(template, 'AWS::Events::Rule')).map((r) => r.Properties ?? {});
    expect(rules).toHaveLength(1);
    expect(rules[0]?.ScheduleExpression).toBe(`rate(${scheduled.trigger.kind === 'schedule' ? scheduled.trigger.everyMinutes : NaN} minutes)`);
    expect(rules[0]?.State).toBe('ENABLED');
    const targets = rules[0]?.Targets as { Arn: unknown }[];
    expect(targets.map((t) => refId(t.Arn, 'Arn'))).toEqual([functionId(scheduled.name)]);
  });

  test("what EventBridge cannot deliver, and what the worker fails after its retries, goes to the schedules' DLQ, which alarms", () => {
    const rule = Object.values(resources(template, 'AWS::Events::Rule'))[0]?.Properties ?? {};
    const [target] = rule.Targets as { DeadLetterConfig?: { Arn: unknown }; RetryPolicy?: unknown }[];
    const dlq = refId(target?.DeadLetterConfig?.Arn, 'Arn') ?? '';
    expect(props(template, dlq)).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: MAX_RETENTION.toSeconds() });
    expect(refId((props(template, functionId(scheduled.name)).DeadLetterConfig as { TargetArn: unknown }).TargetArn, 'Arn')).toBe(dlq);
    // EventBridge may send to it (the queue's policy), and so may the worker (its role).
    const queuePolicies = Object.values(resources(template, 'AWS::SQS::QueuePolicy')).filter((p) => referencedIds(p.Properties?.Queues).has(dlq));
    const allowed = queuePolicies.flatMap((p) =>
      (p.Properties?.PolicyDocument as { Statement: { Effect: string; Principal?: unknown }[] }).Statement.filter((s) => s.Effect === 'Allow'),
    );
    expect(allowed.map((s) => s.Principal)).toEqual([{ Service: 'events.amazonaws.com' }]);
    expect(statementsOf(scheduled.name).some((s) => s.actions.includes('sqs:SendMessage') && referencedIds(s.resource).has(dlq))).toBe(true);
    const alarms = Object.values(resources(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties ?? {});
    expect(alarms.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && referencedIds(a.Dimensions).has(dlq))).toHaveLength(1);
  });

  test('the other functions are invoked synchronously and have no DLQ of their own', () => {
    for (const name of [consumer.name, router.name, apiFunction.name]) expect(props(template, functionId(name)).DeadLetterConfig).toBeUndefined();
  });

  test('EventBridge may invoke it', () => {
    const permissions = Object.values(resources(template, 'AWS::Lambda::Permission')).map((p) => p.Properties ?? {});
    expect(permissions.filter((p) => p.Principal === 'events.amazonaws.com' && refId(p.FunctionName, 'Arn') === functionId(scheduled.name))).toHaveLength(1);
  });
});

describe('queue trigger', () => {
  test('an SQS event source mapping with the batch size and partial batch failures', () => {
    expect(mappingOf(consumer.name)).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [queueId('webhook-delivery'), 'Arn'] },
      BatchSize: consumer.trigger.kind === 'queue' ? consumer.trigger.batchSize : NaN,
      MaximumBatchingWindowInSeconds: 0,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // No maxConcurrency in its trigger: Lambda's own scaling.
    expect(mappingOf(consumer.name)?.ScalingConfig).toBeUndefined();
  });

  test('the consumer may receive and delete from its queue; no other worker consumes anything', () => {
    const consuming = (name: string) => statementsOf(name).filter((s) => s.actions.includes('sqs:ReceiveMessage') && s.actions.includes('sqs:DeleteMessage'));
    expect(consuming(consumer.name).flatMap((s) => [...referencedIds(s.resource)])).toEqual([queueId('webhook-delivery')]);
    expect(consuming(scheduled.name)).toEqual([]);
    expect(consuming(router.name)).toEqual([]);
  });

  test('its visibility timeout covers six runs of the consumer; other queues keep theirs', () => {
    const queues = resources(template, 'AWS::SQS::Queue');
    for (const q of QUEUES) {
      const expected =
        q.name === 'webhook-delivery'
          ? Math.max(q.visibilityTimeoutSeconds, VISIBILITY_PER_CONSUMER_TIMEOUT * consumer.timeoutSeconds)
          : q.visibilityTimeoutSeconds;
      expect([q.name, queues[queueId(q.name)]?.Properties?.VisibilityTimeout]).toEqual([q.name, expected]);
    }
    // The fixture is chosen so that the consumer's timeout is what decides.
    expect(queues[queueId('webhook-delivery')]?.Properties?.VisibilityTimeout).toBe(6 * consumer.timeoutSeconds);
  });

  test('a consumed queue keeps messages for less time than its DLQ; an unconsumed one for the maximum', () => {
    const queues = resources(template, 'AWS::SQS::Queue');
    const retention = (id: string): unknown => queues[id]?.Properties?.MessageRetentionPeriod;
    const consumed = queues[queueId('webhook-delivery')]?.Properties ?? {};
    const dlq = refId((consumed.RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn, 'Arn') ?? '';
    // Unset means the SQS default of 4 days.
    expect(retention(queueId('webhook-delivery'))).toBeUndefined();
    expect(retention(dlq)).toBe(MAX_RETENTION.toSeconds());
    expect(MAX_RETENTION.toSeconds()).toBeGreaterThan(4 * 24 * 3600);
    expect(retention(queueId(STREAM_FAILURE_QUEUE))).toBe(MAX_RETENTION.toSeconds());
  });
});

describe('stream trigger', () => {
  const tableId = Object.keys(resources(template, 'AWS::DynamoDB::Table'))[0] ?? '';
  const mapping = mappingOf(router.name);

  test('reads the table stream from LATEST, bisecting failed batches and reporting item failures', () => {
    expect(mapping).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      StartingPosition: 'LATEST',
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: STREAM_RETRY_ATTEMPTS,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  test('sends records that still fail to the failures queue', () => {
    expect(mapping?.DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': [queueId(STREAM_FAILURE_QUEUE), 'Arn'] } } });
    const alarms = Object.values(resources(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties ?? {});
    expect(alarms.filter((a) => referencedIds(a.Dimensions).has(queueId(STREAM_FAILURE_QUEUE)))).toHaveLength(1);
  });

  test('passes only INSERTs of outbox items and writes of wallet balance rows (a payment announces through its outbox item)', () => {
    const filters = (mapping?.FilterCriteria as { Filters: { Pattern: string }[] }).Filters;
    expect(filters.map((f) => JSON.parse(f.Pattern) as unknown)).toEqual([
      { eventName: ['INSERT'], dynamodb: { Keys: { [TABLE.partitionKey]: { S: [{ prefix: OUTBOX_KEY_PREFIX }] } } } },
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { Keys: { [TABLE.sortKey]: { S: [{ prefix: 'BAL#wallet:' }] } } } },
    ]);
  });

  test('may read the stream', () => {
    const streamReads = statementsOf(router.name).filter((s) => s.actions.includes('dynamodb:GetRecords'));
    expect(streamReads.some((s) => JSON.stringify(s.resource).includes('StreamArn'))).toBe(true);
  });
});

describe('definition errors fail the synth', () => {
  const withWorkers = (...workers: WorkerFunction[]): GatewayDefinition => ({ ...definition, workers });

  test('a stream worker without the failures queue', () => {
    const queues = QUEUES.filter((q) => q.name !== STREAM_FAILURE_QUEUE);
    expect(() => buildStack({ ...withWorkers(router), queues })).toThrow(STREAM_FAILURE_QUEUE);
  });

  test('a route claimed by two functions', () => {
    const twin = { ...apiFunction, name: `${apiFunction.name}-twin` };
    expect(() => buildStack({ ...definition, api: [apiFunction, twin] })).toThrow(/claimed by both/);
  });

  test('a queue trigger on an undefined queue', () => {
    const queues = QUEUES.filter((q) => q.name !== 'webhook-delivery');
    expect(() => buildStack({ ...withWorkers(consumer), queues })).toThrow(/not defined in QUEUES/);
  });

  test('two functions with one name', () => {
    expect(() => buildStack(withWorkers(scheduled, { ...consumer, name: scheduled.name }))).toThrow(/defined twice/);
  });
});
