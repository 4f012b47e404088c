import type { CfnElement } from 'aws-cdk-lib';
import { WORKER_FUNCTIONS, queueUrlEnv } from '../../infra/definition.js';
import { STREAM_BATCH_SIZE } from '../../infra/cdk/gateway-stack.js';
import { buildStack, envRef, outputRef, props, referencedIds, refId, resources, roleOf, statements } from './support.js';

/** The deployed definition (infra/definition.ts) carries the webhook pipeline: worker, queue, DLQ, alarm, secrets key. */
const { stack, template } = buildStack();

const fnId = (name: string): string => {
  const fn = stack.functions.get(name);
  if (!fn) throw new Error(`No function ${name}`);
  return stack.getLogicalId(fn.node.defaultChild as CfnElement);
};
const worker = WORKER_FUNCTIONS.find((w) => w.name === 'webhook-delivery');

describe('webhook delivery infrastructure', () => {
  const queueId = () => envRef(template, fnId('webhook-delivery'), queueUrlEnv('webhook-delivery'));

  test('the webhook-delivery worker consumes its queue in batches of 10 with partial batch failures', () => {
    expect(worker).toMatchObject({ entry: 'functions/webhook-delivery/handler.ts', trigger: { kind: 'queue', queue: 'webhook-delivery', batchSize: 10 } });
    expect(props(template, fnId('webhook-delivery'))).toMatchObject({ Runtime: 'nodejs24.x', Timeout: worker?.timeoutSeconds });
    const mapping = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping'))
      .map((m) => m.Properties ?? {})
      .find((m) => refId(m.FunctionName) === fnId('webhook-delivery'));
    expect(mapping).toMatchObject({ EventSourceArn: { 'Fn::GetAtt': [queueId(), 'Arn'] }, BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] });
  });

  test('a batch goes to the worker as soon as it is received, and at most 50 batches run at once', () => {
    expect(worker?.trigger).toMatchObject({ maxConcurrency: 50 });
    const mapping = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping'))
      .map((m) => m.Properties ?? {})
      .find((m) => refId(m.FunctionName) === fnId('webhook-delivery'));
    expect(mapping).toMatchObject({ MaximumBatchingWindowInSeconds: 0, ScalingConfig: { MaximumConcurrency: 50 } });
  });

  test('the event router gets up to 100 stream records per invocation as soon as they are read, one batch per shard at a time', () => {
    const mapping = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping'))
      .map((m) => m.Properties ?? {})
      .find((m) => refId(m.FunctionName) === fnId('event-router'));
    expect(mapping).toMatchObject({ BatchSize: STREAM_BATCH_SIZE, MaximumBatchingWindowInSeconds: 0 });
    expect(STREAM_BATCH_SIZE).toBe(100);
    // Records of one shard in order, one batch at a time (ParallelizationFactor left at 1).
    expect(mapping?.ParallelizationFactor ?? 1).toBe(1);
  });

  test('the queue has a DLQ with an alarm, and a visibility timeout above the worker timeout', () => {
    const queues = resources(template, 'AWS::SQS::Queue');
    const queue = queues[queueId()]?.Properties ?? {};
    expect(Number(queue.VisibilityTimeout)).toBeGreaterThanOrEqual(6 * (worker?.timeoutSeconds ?? Infinity));
    const dlq = refId((queue.RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn, 'Arn') ?? '';
    expect(queues[dlq]).toBeDefined();
    const alarms = Object.values(resources(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties ?? {});
    expect(alarms.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && referencedIds(a.Dimensions).has(dlq))).toHaveLength(1);
  });

  test('the worker may decrypt secrets with the data key and re-enqueue to its queue; the loopback setting is off', () => {
    const secretsKey = outputRef(template, 'SecretsKeyId');
    const mine = statements(template).filter((s) => s.roles.includes(roleOf(template, fnId('webhook-delivery'))));
    expect(mine.some((s) => referencedIds(s.resource).has(secretsKey) && s.actions.includes('kms:Decrypt'))).toBe(true);
    expect(mine.some((s) => referencedIds(s.resource).has(queueId()) && s.actions.includes('sqs:SendMessage'))).toBe(true);
    const env = (props(template, fnId('webhook-delivery')).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(env.ALLOW_LOOPBACK_CALLBACKS).toBe('false');
    expect(refId(env.SECRETS_KEY_ID)).toBe(secretsKey);
  });
  test('the retry lane: its own worker, queue, DLQ with an alarm and concurrency; it may decrypt secrets and send to both lanes', () => {
    const retries = WORKER_FUNCTIONS.find((w) => w.name === 'webhook-retries');
    expect(retries).toMatchObject({
      entry: 'functions/webhook-retries/handler.ts',
      trigger: { kind: 'queue', queue: 'webhook-retries', batchSize: 10, maxConcurrency: 20 },
    });
    const retryQueue = envRef(template, fnId('webhook-retries'), queueUrlEnv('webhook-retries'));
    expect(retryQueue).not.toBe(queueId());
    const mapping = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping'))
      .map((m) => m.Properties ?? {})
      .find((m) => refId(m.FunctionName) === fnId('webhook-retries'));
    expect(mapping).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [retryQueue, 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 20 },
    });
    const queues = resources(template, 'AWS::SQS::Queue');
    const queue = queues[retryQueue]?.Properties ?? {};
    expect(Number(queue.VisibilityTimeout)).toBeGreaterThanOrEqual(6 * (retries?.timeoutSeconds ?? Infinity));
    const dlq = refId((queue.RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn, 'Arn') ?? '';
    expect(queues[dlq]).toBeDefined();
    expect(dlq).not.toBe(refId((queues[queueId()]?.Properties?.RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn, 'Arn'));
    const alarms = Object.values(resources(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties ?? {});
    expect(alarms.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && referencedIds(a.Dimensions).has(dlq))).toHaveLength(1);
    const secretsKey = outputRef(template, 'SecretsKeyId');
    const mine = statements(template).filter((s) => s.roles.includes(roleOf(template, fnId('webhook-retries'))));
    expect(mine.some((s) => referencedIds(s.resource).has(secretsKey) && s.actions.includes('kms:Decrypt'))).toBe(true);
    for (const q of [retryQueue, queueId()]) expect(mine.some((s) => referencedIds(s.resource).has(q) && s.actions.includes('sqs:SendMessage'))).toBe(true);
    // The first lane hands attempts over to the retry lane's queue.
    const first = statements(template).filter((s) => s.roles.includes(roleOf(template, fnId('webhook-delivery'))));
    expect(first.some((s) => referencedIds(s.resource).has(retryQueue) && s.actions.includes('sqs:SendMessage'))).toBe(true);
  });
});
