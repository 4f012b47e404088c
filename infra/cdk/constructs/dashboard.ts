import { Duration } from 'aws-cdk-lib';
import type { CfnResource } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Dashboard, GraphWidget, LogQueryVisualizationType, LogQueryWidget, MathExpression, Metric, Stats, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { IMetric, IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { HOT_WALLET_BALANCE_LINE } from '../../../shared/usecases/monitoring/hot-wallet.js';
import { METRIC_NAMES, METRIC_NAMESPACES, NETWORK_DIMENSION } from '../../../shared/observability/metrics.js';
import type { RouteKey } from '../../definition.js';
import { API_STAGE } from './http-api.js';
import type { GatewayQueue } from './queues.js';

const PERIOD = Duration.minutes(5);
const WIDTH = 12;
const HEIGHT = 6;

export interface GatewayDashboardProps {
  readonly stage: string;
  readonly api: IHttpApi;
  /** Every route key of the API, one line each in the per-route graphs. */
  readonly routes: readonly RouteKey[];
  readonly queues: readonly GatewayQueue[];
  /** The chain-tx follower's log group: its `hot wallet balance` lines (shared/usecases/monitoring/hot-wallet.ts). */
  readonly hotWalletLogs?: ILogGroup;
}

/** The Logs Insights query of the hot wallet's balance per network: the lowest of each 5 minutes. */
export const HOT_WALLET_BALANCE_QUERY = [
  'fields @timestamp, network, balance_value',
  `filter message = "${HOT_WALLET_BALANCE_LINE}"`,
  'stats min(balance_value) by bin(5m), network',
];

/**
 * One CloudWatch dashboard of the stack: the API by route, the queues and their dead-letter queues, webhook
 * deliveries, the chain scanners, the hot wallet and the withdrawals. The gateway's own metrics are named from
 * shared/observability/metrics.ts, where the handlers that print them (as EMF lines) take their names too; the
 * per-network ones are SEARCH expressions, so a network shows up once it prints, without a redeploy. The counts of
 * stuck and re-driven work have no per-network or per-kind metric (one metric each: which network or kind is in the
 * monitor's log lines); a scanner prints its lag only when it is behind the tip (no line: caught up).
 */
export class GatewayDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: GatewayDashboardProps) {
    super(scope, id);
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `PaymentGateway-${props.stage}` });
    // The stack's tags reach the dashboard: CloudFormation takes `Tags` on AWS::CloudWatch::Dashboard, which
    // cfn-lint 1.51's resource schema predates (E3002 "Tags was unexpected").
    (this.dashboard.node.defaultChild as CfnResource).addMetadata('cfn-lint', { config: { ignore_checks: ['E3002'] } });
    const route = (metricName: string, statistic: string) =>
      props.routes.map(
        (key) =>
          new Metric({
            namespace: 'AWS/ApiGateway',
            metricName,
            dimensionsMap: { ApiId: props.api.apiId, Stage: API_STAGE, Route: key },
            statistic,
            period: PERIOD,
            label: key,
          }),
      );
    const wholeApi = (metricName: string, statistic: string, label: string) =>
      new Metric({ namespace: 'AWS/ApiGateway', metricName, dimensionsMap: { ApiId: props.api.apiId, Stage: API_STAGE }, statistic, period: PERIOD, label });
    const gateway = (namespace: string, metricName: string, statistic: string, label: string, dimensions?: Record<string, string>) =>
      new Metric({ namespace, metricName, statistic, period: PERIOD, label, ...(dimensions ? { dimensionsMap: dimensions } : {}) });
    const perNetwork = (namespace: string, metricName: string, statistic: string) =>
      new MathExpression({
        expression: `SEARCH('{${namespace},${NETWORK_DIMENSION}} MetricName="${metricName}"', '${statistic}', ${PERIOD.toSeconds()})`,
        usingMetrics: {},
        period: PERIOD,
        // One line per network, named by it.
        label: '',
      });
    const graph = (title: string, left: IMetric[], right: IMetric[] = []): IWidget =>
      new GraphWidget({ title, left, right, width: WIDTH, height: HEIGHT, period: PERIOD });

    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# Payment gateway (${props.stage})\nAlarms and what to do for each: docs/operations.md. Per-route lines need the stage's detailed metrics.`,
        width: 2 * WIDTH,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph('API latency p99 by route (ms)', [...route('Latency', Stats.p(99)), wholeApi('Latency', Stats.p(99), 'whole API')]),
      graph('API 5xx by route', [...route('5xx', Stats.SUM), wholeApi('5xx', Stats.SUM, 'whole API')]),
    );
    this.dashboard.addWidgets(
      graph(
        'Queues: age of the oldest message (s)',
        props.queues.map((q) => q.queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: Stats.MAXIMUM, label: q.definition.name })),
      ),
      graph(
        'Dead-letter queues: messages (any is an alarm)',
        props.queues.map((q) =>
          q.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: Stats.MAXIMUM, label: `${q.definition.name} DLQ` }),
        ),
      ),
    );
    const succeeded = METRIC_NAMES.webhookAttemptSucceeded;
    this.dashboard.addWidgets(
      graph(
        'Webhook attempts: success rate (0-1) and attempts',
        [gateway(METRIC_NAMESPACES.webhooks, succeeded, Stats.AVERAGE, 'success rate')],
        [gateway(METRIC_NAMESPACES.webhooks, succeeded, Stats.SAMPLE_COUNT, 'attempts')],
      ),
      graph('Webhook attempts: latency (ms)', [
        gateway(METRIC_NAMESPACES.webhooks, METRIC_NAMES.webhookAttemptLatency, Stats.p(50), 'p50'),
        gateway(METRIC_NAMESPACES.webhooks, METRIC_NAMES.webhookAttemptLatency, Stats.p(99), 'p99'),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Scanners: blocks behind the tip, per network', [perNetwork(METRIC_NAMESPACES.scanner, METRIC_NAMES.scannerBlocksBehind, Stats.MAXIMUM)]),
      ...(props.hotWalletLogs
        ? [
            new LogQueryWidget({
              title: 'Hot wallet: native balance per network (follower log lines)',
              logGroupNames: [props.hotWalletLogs.logGroupName],
              queryLines: HOT_WALLET_BALANCE_QUERY,
              view: LogQueryVisualizationType.LINE,
              width: WIDTH,
              height: HEIGHT,
            }),
          ]
        : []),
    );
    this.dashboard.addWidgets(
      graph('Withdrawals waiting', [
        gateway(METRIC_NAMESPACES.operations, METRIC_NAMES.withdrawalsStuck, Stats.MAXIMUM, 'processing too long'),
        gateway(METRIC_NAMESPACES.chainTx, METRIC_NAMES.insufficientGas, Stats.MAXIMUM, 'chain transactions waiting for gas'),
      ]),
      graph('Stuck work', [
        gateway(METRIC_NAMESPACES.operations, METRIC_NAMES.sweepsStuck, Stats.MAXIMUM, 'sweeps stuck'),
        gateway(METRIC_NAMESPACES.operations, METRIC_NAMES.acceptedWorkStuck, Stats.MAXIMUM, 'accepted work stuck'),
        gateway(METRIC_NAMESPACES.operations, METRIC_NAMES.acceptedWorkRedriven, Stats.MAXIMUM, 'accepted work re-driven'),
      ]),
    );
  }
}
