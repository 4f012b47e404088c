import { API_FUNCTIONS, QUEUES } from '../../infra/definition.js';
import { HOT_WALLET_BALANCE_QUERY } from '../../infra/cdk/constructs/dashboard.js';
import { API_STAGE } from '../../infra/cdk/constructs/http-api.js';
import { METRIC_NAMES, METRIC_NAMESPACES, NETWORK_DIMENSION } from '../../shared/observability/metrics.js';
import { buildStack, refId, resources, STAGE } from './support.js';

// One synthesis of the real definition for the whole file.
const { template } = buildStack();
const dashboards = resources(template, 'AWS::CloudWatch::Dashboard');

/**
 * The dashboard's body as the console would read it: the Fn::Join's parts, each reference written as `<logical id>`
 * (a queue's name, the API's id), so widgets can be parsed and matched to the resources they show.
 */
function body(): { widgets: { type: string; properties: Record<string, unknown> }[] } {
  const [dashboard] = Object.values(dashboards);
  const join = (dashboard?.Properties?.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  const text = join[1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const id = refId(part);
      if (id !== undefined) return `<${id}>`;
      if (typeof part === 'object' && part !== null && 'Ref' in part) return `<${String((part as { Ref: string }).Ref)}>`;
      throw new Error(`Unexpected part ${JSON.stringify(part)}`);
    })
    .join(join[0]);
  return JSON.parse(text) as ReturnType<typeof body>;
}

const widgets = body().widgets;
const graphs = widgets.filter((w) => w.type === 'metric');
const graph = (title: string) => {
  const found = graphs.filter((w) => String(w.properties.title).startsWith(title));
  expect(found).toHaveLength(1);
  return found[0]?.properties ?? {};
};
/** A graph's metric lines: `[namespace, name, dim, value, ..., {options}]`. */
const lines = (title: string): unknown[][] => (graph(title).metrics as unknown[][]).filter((m) => typeof m[0] === 'string');
const dims = (line: unknown[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  const flat = line.slice(2).filter((x) => typeof x !== 'object');
  for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = flat[i + 1];
  return out;
};
/** A line's statistic; CloudWatch's default (Average) is left out of the body. */
const statOf = (line: unknown[]): string => (line[line.length - 1] as { stat?: string }).stat ?? 'Average';
const expressions = (title: string): string[] =>
  (graph(title).metrics as unknown[][]).flatMap((m) => m.map((x) => (x as { expression?: string }).expression).filter((e): e is string => e !== undefined));

const queues = resources(template, 'AWS::SQS::Queue');
/** Main queues (those with a redrive policy) and their dead-letter queues, by logical id. */
const mainQueues = Object.entries(queues).filter(([, q]) => q.Properties?.RedrivePolicy !== undefined);
const deadLetterIds = mainQueues.map(([, q]) => refId((q.Properties?.RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn, 'Arn'));
const apiId = Object.keys(resources(template, 'AWS::ApiGatewayV2::Api'))[0];
const routes = API_FUNCTIONS.flatMap((f) => f.routes);

describe('the CloudWatch dashboard', () => {
  test('one dashboard, named after the stage', () => {
    expect(Object.keys(dashboards)).toHaveLength(1);
    const [dashboard] = Object.values(dashboards);
    expect(dashboard?.Properties?.DashboardName).toBe(`PaymentGateway-${STAGE}`);
  });

  test.each([
    ['API latency p99 by route', 'Latency', 'p99'],
    ['API 5xx by route', '5xx', 'Sum'],
  ])('%s: a line per route of the definition, on the HTTP API and its stage, and one for the whole API', (title, metric, stat) => {
    const mine = lines(title);
    const perRoute = mine.filter((l) => dims(l).Route !== undefined);
    expect(perRoute).toHaveLength(routes.length);
    expect(perRoute.map((l) => dims(l).Route).sort()).toEqual([...routes].sort());
    for (const l of mine) {
      expect(l.slice(0, 2)).toEqual(['AWS/ApiGateway', metric]);
      expect(dims(l)).toMatchObject({ ApiId: `<${apiId}>`, Stage: API_STAGE });
      expect(l[l.length - 1]).toMatchObject({ stat });
    }
    expect(mine.filter((l) => dims(l).Route === undefined)).toHaveLength(1);
  });

  test("every queue's age and every dead-letter queue's depth", () => {
    expect(mainQueues).toHaveLength(QUEUES.length);
    const ages = lines('Queues: age of the oldest message');
    expect(ages.every((l) => l[0] === 'AWS/SQS' && l[1] === 'ApproximateAgeOfOldestMessage')).toBe(true);
    expect(ages.map((l) => dims(l).QueueName).sort()).toEqual(mainQueues.map(([id]) => `<${id}>`).sort());
    const depths = lines('Dead-letter queues');
    expect(depths.every((l) => l[0] === 'AWS/SQS' && l[1] === 'ApproximateNumberOfMessagesVisible')).toBe(true);
    expect(depths.map((l) => dims(l).QueueName).sort()).toEqual(deadLetterIds.map((id) => `<${id}>`).sort());
    expect(new Set(deadLetterIds).size).toBe(QUEUES.length);
  });

  test('webhook attempts: success rate and attempts, latency p50 and p99, from the names the delivery worker prints', () => {
    const rate = lines('Webhook attempts: success rate');
    expect(rate.map((l) => [l[0], l[1], statOf(l)])).toEqual([
      [METRIC_NAMESPACES.webhooks, METRIC_NAMES.webhookAttemptSucceeded, 'Average'],
      [METRIC_NAMESPACES.webhooks, METRIC_NAMES.webhookAttemptSucceeded, 'SampleCount'],
    ]);
    const latency = lines('Webhook attempts: latency');
    expect(latency.map((l) => [l[0], l[1], statOf(l)])).toEqual([
      [METRIC_NAMESPACES.webhooks, METRIC_NAMES.webhookAttemptLatency, 'p50'],
      [METRIC_NAMESPACES.webhooks, METRIC_NAMES.webhookAttemptLatency, 'p99'],
    ]);
  });

  test.each([['Scanners: blocks behind the tip', METRIC_NAMESPACES.scanner, METRIC_NAMES.scannerBlocksBehind, 'Maximum']])(
    '%s: one line per network, whatever networks print',
    (title, namespace, name, stat) => {
      expect(expressions(title)).toEqual([`SEARCH('{${namespace},${NETWORK_DIMENSION}} MetricName="${name}"', '${stat}', 300)`]);
    },
  );

  test("hot wallet balance: a Logs Insights line per network over the follower's log group (no metric per network)", () => {
    const logs = widgets.filter((w) => w.type === 'log');
    expect(logs).toHaveLength(1);
    const query = String(logs[0]?.properties.query);
    const follower = Object.entries(resources(template, 'AWS::Lambda::Function')).find(([, f]) =>
      String(f.Properties?.Description).endsWith(': chain-tx-follower'),
    );
    const logGroup = refId((follower?.[1].Properties?.LoggingConfig as { LogGroup: unknown }).LogGroup);
    expect(query).toContain(`SOURCE '<${logGroup}>'`);
    expect(query).toContain(HOT_WALLET_BALANCE_QUERY.join('\n| '));
  });

  test('withdrawals waiting and stuck work, from the monitor and follower metrics', () => {
    expect(lines('Withdrawals waiting').map((l) => l[1])).toEqual([METRIC_NAMES.withdrawalsStuck, METRIC_NAMES.insufficientGas]);
    expect(lines('Stuck work').map((l) => l[1])).toEqual([METRIC_NAMES.sweepsStuck, METRIC_NAMES.acceptedWorkStuck, METRIC_NAMES.acceptedWorkRedriven]);
  });
});
