import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Dashboard, GraphWidget, MathExpression, Metric, Stats, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { IMetric, IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { AcceptedWorkKind } from '../../../shared/domain/reconcile.js';
import { METRIC_NAMES, METRIC_NAMESPACES, NETWORK_DIMENSION, WORK_DIMENSION } from '../../../shared/observability/metrics.js';
import type { RouteKey } from '../../definition.js';
import type { GatewayQueue } from './queues.js';

const PERIOD = Duration.minutes(5);
const WIDTH = 12;
const HEIGHT = 6;
/** The HTTP API's stage: the default one (http-api.ts leaves createDefaultStage on). */
export const API_STAGE = '$default';
/** The work kind of the reconciler's metrics that is a withdrawal (shared/usecases/monitoring/reconcile.ts). */
const WITHDRAWAL_WORK: AcceptedWorkKind = 'withdrawal';

export interface GatewayDashboardProps {
  readonly stage: string;
  readonly api: IHttpApi;
  /** Every route key of the API, one line each in the per-route graphs. */
  readonly routes: readonly RouteKey[];
  readonly queues: readonly GatewayQueue[];
}

/**
 * One CloudWatch dashboard of the stack: the API by route, the queues and their dead-letter queues, webhook
 * deliveries, the chain scanners, the hot wallet and the withdrawals. The gateway's own metrics are named from
 * shared/observability/metrics.ts, where the handlers that print them (as EMF lines) take their names too; the
 * per-network ones are SEARCH expressions, so a network shows up once it prints, without a redeploy.
 */
export class GatewayDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: GatewayDashboardProps) {
    super(scope, id);
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `PaymentGateway-${props.stage}` });
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
      graph('Hot wallet: native balance per network', [perNetwork(METRIC_NAMESPACES.chainTx, METRIC_NAMES.hotWalletBalance, Stats.MINIMUM)]),
    );
    this.dashboard.addWidgets(
      graph('Withdrawals waiting', [
        gateway(METRIC_NAMESPACES.operations, METRIC_NAMES.withdrawalsStuck, Stats.MAXIMUM, 'processing too long'),
        gateway(METRIC_NAMESPACES.operations, METRIC_NAMES.acceptedWorkStuck, Stats.MAXIMUM, 'accepted, not moved after a re-drive', {
          [WORK_DIMENSION]: WITHDRAWAL_WORK,
        }),
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
