import type { CfnElement } from 'aws-cdk-lib';
import { QUEUES, WORKER_FUNCTIONS } from '../../infra/definition.js';
import type { ApiFunction, WorkerFunction } from '../../infra/definition.js';
import { EXPORTS_API, EXPORTS_WORKER } from '../../infra/cdk/gateway-stack.js';
import { ACCESS_LOG_RETENTION_DAYS } from '../../infra/cdk/constructs/exports-bucket.js';
import type { GatewayDefinition } from '../../infra/cdk/gateway-stack.js';
import { EXPORT_RETENTION_DAYS } from '../../shared/domain/exports.js';
import { buildStack, envRef, outputRef, props, referencedIds, refId, resources, roleOf, statements } from './support.js';

/** The transaction exports' bucket: private, encrypted, TLS only, emptied by its lifecycle; written by the worker, read by the API. */
const exportsWorker = WORKER_FUNCTIONS.find((w) => w.name === EXPORTS_WORKER);
if (!exportsWorker) throw new Error(`WORKER_FUNCTIONS has no ${EXPORTS_WORKER}`);
const transactionsApi: ApiFunction = {
  name: EXPORTS_API,
  entry: 'functions/transactions/handler.ts',
  routes: ['ANY /transactions', 'ANY /transactions/{proxy+}'],
};
const otherApi: ApiFunction = { name: 'wallets', entry: 'functions/wallets/handler.ts', routes: ['ANY /wallets', 'ANY /wallets/{proxy+}'] };
const otherWorker: WorkerFunction = {
  name: 'wallet-transfers',
  entry: 'functions/wallet-transfers/handler.ts',
  trigger: { kind: 'queue', queue: 'wallet-transfers', batchSize: 10 },
  timeoutSeconds: 30,
};
const definition: GatewayDefinition = { api: [transactionsApi, otherApi], workers: [exportsWorker, otherWorker], queues: QUEUES };
const { stack, template } = buildStack(definition);

const functionId = (name: string): string => {
  const fn = stack.functions.get(name);
  if (!fn) throw new Error(`No function ${name}`);
  return stack.getLogicalId(fn.node.defaultChild as CfnElement);
};
const buckets = resources(template, 'AWS::S3::Bucket');
const bucketId = outputRef(template, 'ExportBucketName');
const bucket = buckets[bucketId];
const logBucketId = refId((bucket?.Properties?.LoggingConfiguration as { DestinationBucketName?: unknown } | undefined)?.DestinationBucketName) ?? '';
const onBucket = () => statements(template).filter((s) => referencedIds(s.resource).has(bucketId));
const holders = (actionPrefix: string) =>
  new Set(
    statements(template)
      .filter((s) => s.actions.some((a) => a.startsWith(actionPrefix)))
      .flatMap((s) => s.roles),
  );

describe('the exports bucket', () => {
  test('is one of two buckets (the other its access logs), private, S3-encrypted, and retained', () => {
    expect(Object.keys(buckets).sort()).toEqual([bucketId, logBucketId].sort());
    expect(bucket?.Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    });
    expect(bucket?.Properties?.VersioningConfiguration).toBeUndefined();
    expect([bucket?.DeletionPolicy, bucket?.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    expect(outputRef(template, 'ExportBucketName')).toBe(bucketId);
  });

  test(`deletes exports after ${EXPORT_RETENTION_DAYS} days and abandoned multipart uploads after one`, () => {
    expect(bucket?.Properties?.LifecycleConfiguration).toEqual({
      Rules: [
        {
          Id: 'expire-exports',
          Prefix: 'exports/',
          Status: 'Enabled',
          ExpirationInDays: EXPORT_RETENTION_DAYS,
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
        },
      ],
    });
  });

  test('refuses every request without TLS 1.2 or later', () => {
    const policies = Object.values(resources(template, 'AWS::S3::BucketPolicy')).filter((p) => refId(p.Properties?.Bucket) === bucketId);
    expect(policies).toHaveLength(1);
    const document = policies[0]?.Properties?.PolicyDocument as { Statement: { Effect: string; Action: string; Condition: unknown }[] };
    const denies = document.Statement.filter((s) => s.Effect === 'Deny' && s.Action === 's3:*');
    expect(denies.map((s) => s.Condition)).toEqual(
      expect.arrayContaining([{ Bool: { 'aws:SecureTransport': 'false' } }, { NumericLessThan: { 's3:TlsVersion': 1.2 } }]),
    );
    expect(document.Statement.filter((s) => s.Effect === 'Allow')).toEqual([]);
  });
});

describe('the access logs of the exports bucket', () => {
  test('go to a private, S3-encrypted, TLS-only log bucket of their own, kept a year and retained', () => {
    expect(bucket?.Properties?.LoggingConfiguration).toEqual({ DestinationBucketName: { Ref: logBucketId }, LogFilePrefix: 'exports-bucket/' });
    const logs = buckets[logBucketId];
    expect(logs?.Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      LifecycleConfiguration: { Rules: [{ Id: 'expire-access-logs', Status: 'Enabled', ExpirationInDays: ACCESS_LOG_RETENTION_DAYS }] },
    });
    expect([logs?.DeletionPolicy, logs?.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    const policy = Object.values(resources(template, 'AWS::S3::BucketPolicy')).find((p) => refId(p.Properties?.Bucket) === logBucketId);
    const document = policy?.Properties?.PolicyDocument as { Statement: { Effect: string; Action: unknown; Condition: unknown; Principal?: unknown }[] };
    expect(document.Statement.filter((s) => s.Effect === 'Deny').map((s) => s.Condition)).toEqual(
      expect.arrayContaining([{ Bool: { 'aws:SecureTransport': 'false' } }, { NumericLessThan: { 's3:TlsVersion': 1.2 } }]),
    );
    // The only writer it allows is S3's log delivery.
    expect(document.Statement.filter((s) => s.Effect === 'Allow').map((s) => s.Principal)).toEqual([{ Service: 'logging.s3.amazonaws.com' }]);
  });
});

describe('access to the exports', () => {
  const worker = roleOf(template, functionId(EXPORTS_WORKER));
  const api = roleOf(template, functionId(EXPORTS_API));

  test('the worker may only write and abort uploads of export files, the transactions API only read them', () => {
    const granted = onBucket().map((s) => ({ roles: s.roles, actions: [...s.actions].sort(), resource: JSON.stringify(s.resource), effect: s.effect }));
    expect(granted).toHaveLength(2);
    expect(granted).toEqual(
      expect.arrayContaining([
        { roles: [worker], actions: ['s3:AbortMultipartUpload', 's3:PutObject'], resource: expect.stringContaining('/exports/*'), effect: 'Allow' },
        { roles: [api], actions: ['s3:GetObject'], resource: expect.stringContaining('/exports/*'), effect: 'Allow' },
      ]),
    );
    // No one else holds any S3 right, and nobody lists, deletes or holds s3:*.
    expect(holders('s3:')).toEqual(new Set([worker, api]));
    const everyAction = statements(template).flatMap((s) => s.actions);
    expect(everyAction.filter((a) => /^s3:(\*|List|Delete|Get(?!Object$)|PutBucket)/.test(a))).toEqual([]);
  });

  test('EXPORT_BUCKET names the bucket in those two functions only', () => {
    expect(envRef(template, functionId(EXPORTS_WORKER), 'EXPORT_BUCKET')).toBe(bucketId);
    expect(envRef(template, functionId(EXPORTS_API), 'EXPORT_BUCKET')).toBe(bucketId);
    for (const name of [otherApi.name, otherWorker.name]) {
      const variables = (props(template, functionId(name)).Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.EXPORT_BUCKET).toBeUndefined();
    }
  });
});

describe('the export worker', () => {
  test('runs one export per invocation for up to 300 s, from the transaction-exports queue (visibility 6 x its timeout)', () => {
    expect(props(template, functionId(EXPORTS_WORKER))).toMatchObject({ Timeout: 300 });
    const mapping = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping'))
      .map((m) => m.Properties ?? {})
      .find((m) => refId(m.FunctionName) === functionId(EXPORTS_WORKER));
    expect(mapping).toMatchObject({ BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    const queueId = refId(mapping?.EventSourceArn, 'Arn') ?? '';
    expect(props(template, queueId)).toMatchObject({ VisibilityTimeout: 6 * 300 });
  });
});
