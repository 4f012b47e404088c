import { Match } from 'aws-cdk-lib/assertions';
import type { CfnElement } from 'aws-cdk-lib';
import { API_FUNCTIONS, QUEUES, queueTriggerOf, queueUrlEnv, WORKER_FUNCTIONS } from '../../infra/definition.js';
import { TABLE } from '../../infra/table.js';
import { ACCESS_LOG_FORMAT, API_STAGE, ROUTE_THROTTLES, STAGE_THROTTLE } from '../../infra/cdk/constructs/http-api.js';
import { TRACE_SAMPLING } from '../../infra/cdk/constructs/tracing.js';
import { buildStack, envRef, outputRef, props, referencedIds, refId, resources, roleOf, STAGE, statements } from './support.js';

// One synthesis of the real definition for the whole file.
const { stack, template } = buildStack();

const functionId = (name: string): string => {
  const fn = stack.functions.get(name);
  if (!fn) throw new Error(`No function ${name}`);
  return stack.getLogicalId(fn.node.defaultChild as CfnElement);
};
const apiFunctionIds = API_FUNCTIONS.map((f) => functionId(f.name));
/** The API functions behind the pipeline (every group but the public pages). */
const PIPELINED = API_FUNCTIONS.filter((f) => f.access !== 'public-read');
const PUBLIC_PAGES = API_FUNCTIONS.filter((f) => f.access === 'public-read');
const pipelinedIds = PIPELINED.map((f) => functionId(f.name));
const anyFunction = apiFunctionIds[0] ?? '';

describe('table', () => {
  const tables = resources(template, 'AWS::DynamoDB::Table');
  const [tableId, table] = Object.entries(tables)[0] ?? [];

  test('is the only table and is what the functions are told to use', () => {
    expect(Object.keys(tables)).toHaveLength(1);
    for (const id of apiFunctionIds) expect(envRef(template, id, 'TABLE_NAME')).toBe(tableId);
  });

  test('has the keys, TTL, stream, on-demand billing and point-in-time recovery of infra/table.ts', () => {
    expect(table?.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      StreamSpecification: { StreamViewType: TABLE.streamView },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  test('has every GSI with ALL projection and string keys', () => {
    const gsis = table?.Properties?.GlobalSecondaryIndexes;
    expect(gsis).toEqual(
      TABLE.indexes.map((i) => ({
        IndexName: i.name,
        KeySchema: [
          { AttributeName: i.partitionKey, KeyType: 'HASH' },
          { AttributeName: i.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    );
    const keyNames = [TABLE.partitionKey, TABLE.sortKey, ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
    expect(table?.Properties?.AttributeDefinitions).toEqual(expect.arrayContaining(keyNames.map((AttributeName) => ({ AttributeName, AttributeType: 'S' }))));
  });

  test('is retained on delete and replace', () => {
    expect(table?.DeletionPolicy).toBe('Retain');
    expect(table?.UpdateReplacePolicy).toBe('Retain');
  });

  test('every function may read and write items and query the indexes', () => {
    for (const id of pipelinedIds) {
      const role = roleOf(template, id);
      const grant = statements(template).find((s) => s.roles.includes(role) && s.actions.includes('dynamodb:PutItem') && s.actions.includes('dynamodb:Query'));
      expect(grant).toBeDefined();
      expect(referencedIds(grant?.resource)).toEqual(new Set([tableId]));
      expect(JSON.stringify(grant?.resource)).toContain('/index/*');
    }
  });
});

describe('API functions', () => {
  test('one Lambda per API function, and no other', () => {
    expect(Object.keys(resources(template, 'AWS::Lambda::Function'))).toHaveLength(API_FUNCTIONS.length + WORKER_FUNCTIONS.length);
    expect(new Set(apiFunctionIds).size).toBe(API_FUNCTIONS.length);
  });

  test.each(WORKER_FUNCTIONS.map((f) => [f.name]))('worker %s maps its stack traces through its source map (Node, at load)', (name) => {
    const variables = (props(template, functionId(name)).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.NODE_OPTIONS).toBe('--enable-source-maps');
  });

  test.each(PIPELINED.map((f) => [f.name]))('%s runs Node.js 24 on arm64 with the shared environment', (name) => {
    const id = functionId(name);
    const properties = props(template, id);
    expect(properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Environment: { Variables: { STAGE, ALLOW_LOOPBACK_CALLBACKS: 'false' } },
    });
    const variables = (properties.Environment as { Variables: Record<string, unknown> }).Variables;
    // Stack traces are mapped when an unexpected error is logged, not by Node while importing the bundle.
    expect(variables.NODE_OPTIONS).toBeUndefined();
    expect(variables.SECRETS_KEY_ID).toEqual({ Ref: outputRef(template, 'SecretsKeyId') });
    expect(variables.PUBLIC_BASE_URL).toEqual(outputValue('ApiUrl'));
    for (const q of QUEUES) expect(resources(template, 'AWS::SQS::Queue')[envRef(template, id, queueUrlEnv(q.name))]).toBeDefined();
  });

  test('logs are kept for a month', () => {
    for (const id of apiFunctionIds) {
      const logGroup = refId((props(template, id).LoggingConfig as { LogGroup: unknown }).LogGroup);
      expect(props(template, logGroup ?? '').RetentionInDays).toBe(30);
    }
  });

  test('may encrypt and decrypt with the secrets key, and may not sign (payments and subscriptions may read the public key)', () => {
    const secretsKey = outputRef(template, 'SecretsKeyId');
    const signingKey = outputRef(template, 'SigningKeyId');
    for (const f of PIPELINED) {
      const id = functionId(f.name);
      const mine = statements(template).filter((s) => s.roles.includes(roleOf(template, id)));
      const onSecrets = mine.filter((s) => referencedIds(s.resource).has(secretsKey)).flatMap((s) => s.actions);
      expect(onSecrets).toEqual(expect.arrayContaining(['kms:Encrypt', 'kms:Decrypt']));
      const onSigningKey = mine.filter((s) => referencedIds(s.resource).has(signingKey)).flatMap((s) => s.actions);
      expect([f.name, onSigningKey]).toEqual([f.name, ['payments', 'subscriptions'].includes(f.name) ? ['kms:GetPublicKey'] : []]);
    }
  });

  test('may send to every queue', () => {
    for (const id of pipelinedIds) {
      const sendable = statements(template)
        .filter((s) => s.roles.includes(roleOf(template, id)) && s.actions.includes('sqs:SendMessage'))
        .flatMap((s) => [...referencedIds(s.resource)]);
      expect(new Set(sendable)).toEqual(new Set(QUEUES.map((q) => envRef(template, id, queueUrlEnv(q.name)))));
    }
  });
});

describe('the custody group', () => {
  const group = API_FUNCTIONS.filter((f) => f.name === 'custody' || f.name.startsWith('custody-'));
  const tokenContracts = { USDTERC20: '0x2222222222222222222222222222222222222222', USDTSOL: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' };
  const built = buildStack(
    { api: group, workers: [], queues: QUEUES },
    {
      evmRpcUrls: { ETH: 'https://eth.example/rpc' },
      chains: { tronApiUrl: 'https://tron.example', solanaRpcUrl: 'https://solana.example/rpc', tokenContracts },
    },
  );
  const idOf = (name: string): string => {
    const fn = built.stack.functions.get(name);
    if (!fn) throw new Error(`No function ${name}`);
    return built.stack.getLogicalId(fn.node.defaultChild as CfnElement);
  };
  const variablesOf = (name: string) => (props(built.template, idOf(name)).Environment as { Variables: Record<string, unknown> }).Variables;
  const kmsOf = (name: string) =>
    statements(built.template)
      .filter((s) => s.roles.includes(roleOf(built.template, idOf(name))))
      .filter((s) => s.actions.some((a) => a.startsWith('kms:')));

  test('is served by three Lambdas: the sync and the withdrawals apart from the rest of /custody', () => {
    expect(group.map((f) => [f.name, f.routes])).toEqual([
      ['custody', ['ANY /custody', 'ANY /custody/{proxy+}']],
      ['custody-sync', ['ANY /custody/accounts/{accountId}/sync']],
      ['custody-withdrawals', ['ANY /custody/withdraw', 'ANY /custody/withdrawals/{proxy+}']],
    ]);
  });

  test('custody-sync is told the table and the chains it reads: the EVM endpoints, TronGrid, Solana and the token contracts', () => {
    const tableId = Object.keys(resources(built.template, 'AWS::DynamoDB::Table'))[0];
    expect(envRef(built.template, idOf('custody-sync'), 'TABLE_NAME')).toBe(tableId);
    expect(variablesOf('custody-sync')).toMatchObject({
      EVM_RPC_URLS: JSON.stringify({ ETH: 'https://eth.example/rpc' }),
      TRON_API_URL: 'https://tron.example',
      SOLANA_RPC_URL: 'https://solana.example/rpc',
      TOKEN_CONTRACTS: JSON.stringify(tokenContracts),
    });
  });

  test('custody-sync and custody-withdrawals may read and write the table, and use no KMS key but the secrets key', () => {
    const tableId = Object.keys(resources(built.template, 'AWS::DynamoDB::Table'))[0];
    const secretsKey = outputRef(built.template, 'SecretsKeyId');
    for (const name of ['custody-sync', 'custody-withdrawals']) {
      const role = roleOf(built.template, idOf(name));
      const data = statements(built.template).find(
        (s) => s.roles.includes(role) && s.actions.includes('dynamodb:PutItem') && s.actions.includes('dynamodb:Query'),
      );
      expect(referencedIds(data?.resource)).toEqual(new Set([tableId]));
      const kms = kmsOf(name);
      expect({ name, keys: new Set(kms.flatMap((s) => [...referencedIds(s.resource)])) }).toEqual({ name, keys: new Set([secretsKey]) });
      expect(kms.flatMap((s) => s.actions).filter((a) => /^kms:(CreateKey|TagResource|GetPublicKey|ScheduleKeyDeletion|Sign)$/.test(a))).toEqual([]);
    }
  });

  test('custody still makes the Solana keys of SOL addresses and reads their public keys', () => {
    const actions = kmsOf('custody').flatMap((s) => s.actions);
    for (const action of ['kms:CreateKey', 'kms:TagResource', 'kms:GetPublicKey', 'kms:ScheduleKeyDeletion']) expect(actions).toContain(action);
    expect(actions).not.toContain('kms:Sign');
  });
});

describe('public pages (the hosted checkout)', () => {
  test('there is one: checkout, routed at /checkout', () => {
    expect(PUBLIC_PAGES.map((f) => [f.name, f.routes])).toEqual([['checkout', ['ANY /checkout', 'ANY /checkout/{proxy+}']]]);
  });

  test.each(PUBLIC_PAGES.map((f) => [f.name]))('%s reads the table and nothing else: no writes, no queue, no KMS key', (name) => {
    const id = functionId(name);
    const actions = statements(template)
      .filter((s) => s.roles.includes(roleOf(template, id)))
      .flatMap((s) => s.actions);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:BatchGetItem']));
    const denied = actions.filter((a) => !/^dynamodb:(GetItem|BatchGetItem|Query|Scan|ConditionCheckItem|DescribeTable|GetRecords|GetShardIterator)$/.test(a));
    // Logs and X-Ray, if any, are the only other actions a function's role holds.
    expect(denied.filter((a) => a.startsWith('dynamodb:') || a.startsWith('sqs:') || a.startsWith('kms:') || a.startsWith('s3:'))).toEqual([]);
  });

  test.each(PUBLIC_PAGES.map((f) => [f.name]))('%s is told only the table, the stage and the token contracts: no secrets key, no queues, no chains', (name) => {
    const variables = (props(template, functionId(name)).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(Object.keys(variables).sort()).toEqual(['STAGE', 'TABLE_NAME']);
    const built = buildStack(undefined, { chains: { tokenContracts: { USDTERC20: '0x2222222222222222222222222222222222222222' } } });
    const fn = built.stack.functions.get(name);
    const withContracts = (
      props(built.template, built.stack.getLogicalId(fn?.node.defaultChild as CfnElement)).Environment as { Variables: Record<string, unknown> }
    ).Variables;
    expect(Object.keys(withContracts).sort()).toEqual(['STAGE', 'TABLE_NAME', 'TOKEN_CONTRACTS']);
  });
});

function outputValue(name: string): unknown {
  return (template.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs[name]?.Value;
}

describe('HTTP API', () => {
  const routes = Object.values(resources(template, 'AWS::ApiGatewayV2::Route')).map((r) => r.Properties ?? {});
  const integrations = resources(template, 'AWS::ApiGatewayV2::Integration');

  test('has exactly the route keys of the definition, $default included', () => {
    const expected = API_FUNCTIONS.flatMap((f) => f.routes);
    expect(expected).toContain('$default');
    expect(routes.map((r) => r.RouteKey).sort()).toEqual([...expected].sort());
  });

  test.each(API_FUNCTIONS.flatMap((f) => f.routes.map((key) => [key, f.name])))('%s goes to %s', (key, name) => {
    const route = routes.find((r) => r.RouteKey === key);
    const integrationId = [...referencedIds(route?.Target)][0] ?? '';
    expect(integrations[integrationId]?.Properties).toMatchObject({
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      IntegrationUri: { 'Fn::GetAtt': [functionId(name), 'Arn'] },
    });
  });

  test('API Gateway may invoke each function, once per route', () => {
    const permissions = Object.values(resources(template, 'AWS::Lambda::Permission')).filter((p) => p.Properties?.Principal === 'apigateway.amazonaws.com');
    for (const f of API_FUNCTIONS) {
      const mine = permissions.filter((p) => refId(p.Properties?.FunctionName, 'Arn') === functionId(f.name));
      expect(mine).toHaveLength(f.routes.length);
    }
  });

  describe('its stage', () => {
    const stages = Object.values(resources(template, 'AWS::ApiGatewayV2::Stage')).map((r) => r.Properties ?? {});
    const stage = stages[0] ?? {};

    test('is the one $default stage, auto-deployed', () => {
      expect(stages).toHaveLength(1);
      expect(stage).toMatchObject({ StageName: '$default', AutoDeploy: true });
    });

    test('writes one JSON access log line per request to its log group: request id, route, status, latencies, source IP', () => {
      const settings = stage.AccessLogSettings as { DestinationArn: unknown; Format: string };
      const logGroupId = refId(settings.DestinationArn, 'Arn') ?? '';
      expect(resources(template, 'AWS::Logs::LogGroup')[logGroupId]?.Properties).toMatchObject({ RetentionInDays: 365 });
      const format = JSON.parse(settings.Format) as Record<string, string>;
      expect(format).toEqual(ACCESS_LOG_FORMAT);
      expect(format).toMatchObject({
        requestId: '$context.requestId',
        routeKey: '$context.routeKey',
        status: '$context.status',
        latency: '$context.responseLatency',
        integrationLatency: '$context.integrationLatency',
        sourceIp: '$context.identity.sourceIp',
      });
      // No authorizer runs, so the stage has no tenant to log (the handlers log it with the same request id).
      expect(Object.values(format).filter((v) => v.includes('authorizer'))).toEqual([]);
    });

    test('throttles every route, and the token endpoint, checkout, refund claim and payment link pages tighter', () => {
      expect(stage.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: STAGE_THROTTLE.rate, ThrottlingBurstLimit: STAGE_THROTTLE.burst });
      const expected = Object.fromEntries(
        API_FUNCTIONS.flatMap((f) => {
          const throttle = ROUTE_THROTTLES[f.name];
          return throttle ? f.routes.map((key) => [key, { ThrottlingRateLimit: throttle.rate, ThrottlingBurstLimit: throttle.burst }]) : [];
        }),
      );
      expect(Object.keys(expected).sort()).toEqual([
        'ANY /checkout',
        'ANY /checkout/{proxy+}',
        'ANY /o',
        'ANY /o/{proxy+}',
        'ANY /pay',
        'ANY /pay/{proxy+}',
        'ANY /refund-claims',
        'ANY /refund-claims/{proxy+}',
      ]);
      expect(stage.RouteSettings).toEqual(expected);
      for (const throttle of Object.values(ROUTE_THROTTLES)) {
        expect(throttle.rate).toBeLessThan(STAGE_THROTTLE.rate);
        expect(throttle.burst).toBeLessThan(STAGE_THROTTLE.burst);
      }
    });

    test('is created after the routes its settings name', () => {
      const stageResource = Object.values(resources(template, 'AWS::ApiGatewayV2::Stage'))[0] as { DependsOn?: string[] };
      const routeIds = Object.entries(resources(template, 'AWS::ApiGatewayV2::Route'))
        .filter(([, r]) => Object.keys(stage.RouteSettings as object).includes(String(r.Properties?.RouteKey)))
        .map(([id]) => id);
      expect(routeIds).toHaveLength(8);
      expect(stageResource.DependsOn).toEqual(expect.arrayContaining(routeIds));
    });
  });

  test('outputs its URL', () => {
    template.hasOutput('ApiUrl', { Value: { 'Fn::GetAtt': [Match.anyValue(), 'ApiEndpoint'] } });
    expect(resources(template, 'AWS::ApiGatewayV2::Api')[refId(outputValue('ApiUrl'), 'ApiEndpoint') ?? '']).toBeDefined();
  });
});

describe('tracing', () => {
  test('every function is traced by X-Ray (active), and may send its segments', () => {
    const functions = resources(template, 'AWS::Lambda::Function');
    for (const [id, fn] of Object.entries(functions)) {
      expect([id, fn.Properties?.TracingConfig]).toEqual([id, { Mode: 'Active' }]);
      const role = roleOf(template, id);
      expect(statements(template).some((s) => s.roles.includes(role) && s.actions.includes('xray:PutTraceSegments'))).toBe(true);
    }
  });
});

describe('trace sampling', () => {
  test("one X-Ray sampling rule, for the stack's services: a reservoir a second then a fixed share, as TRACE_SAMPLING says", () => {
    const rules = Object.values(resources(template, 'AWS::XRay::SamplingRule'));
    expect(rules).toHaveLength(1);
    const rule = rules[0]?.Properties?.SamplingRule as Record<string, unknown>;
    expect(rule).toMatchObject({
      RuleName: `gateway-${STAGE}`,
      ReservoirSize: TRACE_SAMPLING.reservoirPerSecond,
      FixedRate: TRACE_SAMPLING.fixedRate,
      ServiceType: '*',
      ResourceARN: '*',
      Version: 1,
    });
    expect(TRACE_SAMPLING.fixedRate).toBeLessThan(1);
    // Not every service of the account: those named after the stack (its functions).
    expect(String(rule.ServiceName)).toMatch(/^[\w-]+-\*$/);
  });
});

describe('memory', () => {
  test('a worker that sets its memory gets it; the others keep 1024 MB', () => {
    const functions = Object.values(resources(template, 'AWS::Lambda::Function'));
    for (const w of WORKER_FUNCTIONS) {
      const fn = functions.find((f) => String(f.Properties?.Description).endsWith(`worker: ${w.name}`));
      expect([w.name, fn?.Properties?.MemorySize]).toEqual([w.name, w.memoryMb ?? 1024]);
    }
    expect(WORKER_FUNCTIONS.filter((w) => w.memoryMb !== undefined).map((w) => w.name)).toEqual([
      'event-router',
      'webhook-delivery',
      'chain-tx',
      'chain-tx-follower',
      'chain-scanner',
      'chain-results',
      'custody-solana',
    ]);
  });
});

describe('queues', () => {
  const queues = resources(template, 'AWS::SQS::Queue');
  const alarms = Object.values(resources(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties ?? {});

  test('one queue and one dead-letter queue per definition, and the dead-letter queue of the schedules', () => {
    // And one for the schedules (EventBridge's and the scheduled functions' dead letters).
    expect(Object.keys(queues)).toHaveLength(2 * QUEUES.length + 1);
  });

  test.each(QUEUES.map((q) => [q.name, q]))('%s has its DLQ, redrive policy, SSE and DLQ alarm', (_name, q) => {
    const queueId = envRef(template, anyFunction, queueUrlEnv(q.name));
    const queue = queues[queueId]?.Properties ?? {};
    expect(queue).toMatchObject({
      SqsManagedSseEnabled: true,
      // At least six times the longest timeout of a consumer, as AWS advises for SQS event sources.
      VisibilityTimeout: Math.max(
        q.visibilityTimeoutSeconds,
        ...WORKER_FUNCTIONS.filter((w) => queueTriggerOf(w.trigger)?.queue === q.name).map((w) => 6 * w.timeoutSeconds),
      ),
      RedrivePolicy: { maxReceiveCount: q.maxReceiveCount },
    });
    const dlqId = refId((queue.RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn, 'Arn') ?? '';
    expect(dlqId).not.toBe(queueId);
    expect(queues[dlqId]?.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });

    const dlqAlarms = alarms.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && referencedIds(a.Dimensions).has(dlqId));
    expect(dlqAlarms).toHaveLength(1);
    expect(dlqAlarms[0]).toMatchObject({ Namespace: 'AWS/SQS', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  test("a deployment updates every queue's consumers before the event router that sends to them", () => {
    const router = template.toJSON().Resources[functionId('event-router')] as { DependsOn?: string[] };
    const consumers = WORKER_FUNCTIONS.filter((w) => queueTriggerOf(w.trigger) !== null).map((w) => functionId(w.name));
    expect(consumers).toEqual(
      expect.arrayContaining([functionId('webhook-delivery'), functionId('chain-scanner'), functionId('chain-tx-follower'), functionId('chain-results')]),
    );
    for (const consumer of consumers) expect(router.DependsOn ?? []).toContain(consumer);
  });

  test.each([
    ['chain-scanner', 'scanner-wake'],
    ['chain-tx-follower', 'follower-wake'],
  ] as const)('%s runs on its schedule and is woken by the %s queue, in batches of up to ten', (worker, queue) => {
    const fn = functionId(worker);
    const wakeQueue = envRef(template, anyFunction, queueUrlEnv(queue));
    const mappings = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping')).map((m) => m.Properties ?? {});
    expect(mappings.filter((m) => refId(m.FunctionName) === fn)).toEqual([
      expect.objectContaining({ EventSourceArn: { 'Fn::GetAtt': [wakeQueue, 'Arn'] }, BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] }),
    ]);
    // No other function consumes the wake queue; the schedule still runs the worker every minute.
    expect(mappings.filter((m) => JSON.stringify(m.EventSourceArn).includes(wakeQueue))).toHaveLength(1);
    const rules = Object.values(resources(template, 'AWS::Events::Rule')).map((r) => r.Properties ?? {});
    expect(rules.filter((r) => JSON.stringify(r.Targets).includes(fn))).toEqual([expect.objectContaining({ ScheduleExpression: 'rate(1 minute)' })]);
  });
});

describe('KMS', () => {
  const keys = resources(template, 'AWS::KMS::Key');
  const signingKey = outputRef(template, 'SigningKeyId');
  const secretsKey = outputRef(template, 'SecretsKeyId');

  test('the hot-wallet key is a retained secp256k1 signing key', () => {
    expect(keys[signingKey]?.Properties).toMatchObject({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' });
    expect(keys[signingKey]?.DeletionPolicy).toBe('Retain');
    expect(keys[signingKey]?.UpdateReplacePolicy).toBe('Retain');
  });

  test('the secrets key is a retained, rotated symmetric key', () => {
    expect(secretsKey).not.toBe(signingKey);
    expect(keys[secretsKey]?.Properties?.EnableKeyRotation).toBe(true);
    expect(keys[secretsKey]?.Properties?.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    expect(keys[secretsKey]?.DeletionPolicy).toBe('Retain');
  });

  test('only the workers marked as signers may sign; the payments and subscriptions APIs may only read the public key (BTC deposit addresses, pull mandates)', () => {
    const onKey = statements(template).filter((s) => referencedIds(s.resource).has(signingKey));
    const signing = new Set(onKey.filter((s) => s.actions.includes('kms:Sign')).flatMap((s) => s.roles));
    const signers = WORKER_FUNCTIONS.filter((w) => w.signs).map((w) => roleOf(template, functionId(w.name)));
    expect(signers.length).toBeGreaterThan(0);
    expect(signing).toEqual(new Set(signers));
    const readers = onKey.filter((s) => !s.actions.includes('kms:Sign'));
    expect(readers.map((s) => [s.roles, s.actions])).toEqual(
      ['payments', 'subscriptions'].map((name) => [[roleOf(template, functionId(name))], ['kms:GetPublicKey']]),
    );
  });

  test("every function behind the pipeline and every worker is told the hot wallet's key id (what is served follows from it); the public pages are not", () => {
    const told = [...PIPELINED, ...WORKER_FUNCTIONS].filter((f) => envRef(template, functionId(f.name), 'HOT_WALLET_KEY_ID') === signingKey);
    expect(told.map((f) => f.name)).toEqual([...PIPELINED, ...WORKER_FUNCTIONS].map((f) => f.name));
    for (const page of PUBLIC_PAGES) {
      expect([page.name, (props(template, functionId(page.name)).Environment as { Variables: Record<string, unknown> }).Variables.HOT_WALLET_KEY_ID]).toEqual([
        page.name,
        undefined,
      ]);
    }
  });

  test('the key policy delegates to IAM only (no direct grants to other principals)', () => {
    const policy = keys[signingKey]?.Properties?.KeyPolicy as { Statement: { Principal: unknown }[] };
    expect(policy.Statement).toHaveLength(1);
    expect(JSON.stringify(policy.Statement[0]?.Principal)).toContain(':root');
  });
});

describe('alarms', () => {
  const alarms = Object.values(resources(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties ?? {});
  const topic = [{ Ref: outputRef(template, 'AlarmTopicArn') }];

  test("the API functions' one alarm: any 5xx of the API's stage over 5 minutes", () => {
    // An unexpected error is answered as a generic 500 (test/unit/http/pipeline.test.ts), which Lambda's Errors
    // metric never counts: the API's 5xx does, with crashes and timeouts.
    for (const id of apiFunctionIds) expect(alarms.filter((a) => a.MetricName === 'Errors' && referencedIds(a.Dimensions).has(id))).toEqual([]);
    const api = alarms.filter((a) => a.Namespace === 'AWS/ApiGateway');
    expect(api).toHaveLength(1);
    expect(api[0]).toMatchObject({
      MetricName: '5xx',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: topic,
      OKActions: topic,
    });
    const dimensions = api[0]?.Dimensions as { Name: string; Value: unknown }[];
    expect(dimensions.find((d) => d.Name === 'Stage')?.Value).toBe(API_STAGE);
    expect(Object.keys(resources(template, 'AWS::ApiGatewayV2::Api'))).toEqual([...referencedIds(dimensions.find((d) => d.Name === 'ApiId')?.Value)]);
  });
});

describe('chain settings', () => {
  test('factories, the TRON implementation and API, and token contracts reach every function', () => {
    const chains = {
      forwarderFactories: { ETH: '0x1111111111111111111111111111111111111111', TRX: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
      forwarderImplementationTrx: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      tronApiUrl: 'https://api.trongrid.io',
      tokenContracts: { USDTERC20: '0x2222222222222222222222222222222222222222' },
      withdrawalBatchContract: '0x3333333333333333333333333333333333333333',
    };
    const built = buildStack(undefined, { chains }).template;
    const functions = resources(built, 'AWS::Lambda::Function');
    const gateway = Object.entries(functions).filter(
      ([, r]) => (r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.STAGE === STAGE,
    );
    expect(gateway.length).toBe(API_FUNCTIONS.length + WORKER_FUNCTIONS.length);
    // The public pages are told the token contracts only (their payment URIs name them).
    const told = gateway.filter(([, r]) => 'FORWARDER_FACTORIES' in (r.Properties?.Environment as { Variables: Record<string, unknown> }).Variables);
    expect(told.length).toBe(PIPELINED.length + WORKER_FUNCTIONS.length);
    for (const [, r] of told) {
      expect((r.Properties?.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
        FORWARDER_FACTORIES: JSON.stringify(chains.forwarderFactories),
        FORWARDER_IMPLEMENTATION_TRX: chains.forwarderImplementationTrx,
        TRON_API_URL: chains.tronApiUrl,
        TOKEN_CONTRACTS: JSON.stringify(chains.tokenContracts),
        WITHDRAWAL_BATCH_CONTRACT: chains.withdrawalBatchContract,
      });
    }
    // Without them: no factory (no network takes payments), TRON off.
    const plain = Object.values(resources(template, 'AWS::Lambda::Function'))
      .map((r) => (r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables)
      .filter((v) => v?.STAGE === STAGE);
    expect(plain.length).toBe(API_FUNCTIONS.length + WORKER_FUNCTIONS.length);
    for (const v of plain) expect([v?.FORWARDER_FACTORIES ?? '{}', v?.TRON_API_URL, v?.WITHDRAWAL_BATCH_CONTRACT]).toEqual(['{}', undefined, undefined]);
  });

  test('the Bitcoin API and network (-c btcApiUrl, -c btcNetwork) reach the scanner, chain-tx, the batcher and the API functions', () => {
    const built = buildStack(undefined, { chains: { btcApiUrl: 'https://esplora.example/api', btcNetwork: 'testnet' } });
    const variablesOf = (name: string): Record<string, unknown> => {
      const fn = built.stack.functions.get(name);
      if (!fn) throw new Error(`No function ${name}`);
      return (props(built.template, built.stack.getLogicalId(fn.node.defaultChild as CfnElement)).Environment as { Variables: Record<string, unknown> })
        .Variables;
    };
    const named = ['chain-scanner', 'chain-tx', 'chain-tx-follower', 'withdrawal-batcher', 'currencies', 'payments', 'withdrawals', 'user', 'transactions'];
    for (const name of named) {
      expect([name, variablesOf(name)]).toEqual([name, expect.objectContaining({ BTC_API_URL: 'https://esplora.example/api', BTC_NETWORK: 'testnet' })]);
    }
    // As TRON's API: every function behind the pipeline and every worker, not the public pages.
    const told = PIPELINED.map((f) => f.name).filter((name) => 'BTC_API_URL' in variablesOf(name));
    expect(told).toEqual(PIPELINED.map((f) => f.name));
    for (const page of PUBLIC_PAGES) expect(['BTC_API_URL' in variablesOf(page.name), 'BTC_NETWORK' in variablesOf(page.name)]).toEqual([false, false]);
    // Without them: Bitcoin off, its network left to the stage's default.
    const plain = [...API_FUNCTIONS, ...WORKER_FUNCTIONS].map((f) => props(template, functionId(f.name)).Environment as { Variables: Record<string, unknown> });
    for (const env of plain) expect([env.Variables.BTC_API_URL, env.Variables.BTC_NETWORK]).toEqual([undefined, undefined]);
  });
});
