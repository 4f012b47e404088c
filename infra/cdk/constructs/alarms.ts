import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { API_STAGE } from './http-api.js';

const PERIOD = Duration.minutes(5);

export interface GatewayAlarmsProps {
  readonly stage: string;
  /** Subscribed to the alarm topic when given; otherwise subscribe out of band (PagerDuty, chat, ...). */
  readonly email?: string;
}

/** Every alarm of the stack, all notifying one SNS topic. */
export class GatewayAlarms extends Construct {
  readonly topic: Topic;
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: GatewayAlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { displayName: `Payment gateway (${props.stage}) alarms`, enforceSSL: true });
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
    this.action = new SnsAction(this.topic);
  }

  /**
   * Any 5xx the HTTP API answered: the API functions' one alarm. Handlers answer expected failures themselves and
   * turn an unexpected error into a generic 500 (shared/http/errors.ts), which Lambda does not count as an Errors
   * invocation; a function that crashes or times out is a 5xx too. So this watches every API function's failures,
   * handled or not; the dashboard's "API 5xx by route" names the route, hence the function.
   */
  watchApi(api: IHttpApi): Alarm {
    const metric = new Metric({
      namespace: 'AWS/ApiGateway',
      metricName: '5xx',
      dimensionsMap: { ApiId: api.apiId, Stage: API_STAGE },
      statistic: Stats.SUM,
      period: PERIOD,
    });
    return this.atLeastOne('api-5xx', 'The HTTP API answered 5xx: an API function failed (the dashboard\'s "API 5xx by route" names the route)', metric);
  }

  /** Any invocation error of a worker: workers report expected failures themselves, so an Error is a bug or an outage. */
  watchFunction(name: string, fn: IFunction): Alarm {
    return this.atLeastOne(`${name}-errors`, `Lambda ${name} reported errors`, fn.metricErrors({ period: PERIOD, statistic: Stats.SUM }));
  }

  /** Any message in a dead-letter queue: consumers gave up on it, and someone must look. */
  watchDeadLetterQueue(name: string, dlq: IQueue): Alarm {
    return this.watchQueueDepth(`${name}-dlq-depth`, `Dead-letter queue of ${name} is not empty`, dlq);
  }

  /** Any visible message in a queue that nothing consumes (e.g. a stream's on-failure queue). */
  watchQueueDepth(id: string, description: string, queue: IQueue): Alarm {
    const metric = queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: Stats.MAXIMUM });
    return this.atLeastOne(id, description, metric);
  }

  /**
   * Any custom metric (the gateway's own, printed as EMF by the handlers: shared/observability/metrics.ts),
   * at `value >= threshold` for `evaluationPeriods` periods, notifying the topic on alarm and on recovery.
   * `treatMissingData` has no default on purpose: whether silence is fine depends on how the metric is printed.
   */
  watchMetric(id: string, props: MetricAlarmProps): Alarm {
    const metric = new Metric({
      namespace: props.namespace,
      metricName: props.metricName,
      ...(props.dimensions ? { dimensionsMap: { ...props.dimensions } } : {}),
      statistic: props.statistic ?? Stats.MAXIMUM,
      period: props.period ?? PERIOD,
    });
    return this.notify(
      new Alarm(this, id, {
        alarmDescription: props.description,
        metric,
        threshold: props.threshold ?? 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: props.evaluationPeriods ?? 1,
        treatMissingData: props.treatMissingData,
      }),
    );
  }

  private atLeastOne(id: string, description: string, metric: IMetric): Alarm {
    return this.notify(
      new Alarm(this, id, {
        alarmDescription: description,
        metric,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        // No data means no errors / no messages, not an unknown state.
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  private notify(alarm: Alarm): Alarm {
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    return alarm;
  }
}

export interface MetricAlarmProps {
  readonly description: string;
  readonly namespace: string;
  readonly metricName: string;
  /** None: the metric without dimensions (the gateway's metrics are also printed across networks). */
  readonly dimensions?: Readonly<Record<string, string>>;
  /** Default Maximum: the worst value printed in the period. */
  readonly statistic?: string;
  /** Default 5 minutes. */
  readonly period?: Duration;
  /** Alarm at `value >= threshold`; default 1. */
  readonly threshold?: number;
  /** Default 1. */
  readonly evaluationPeriods?: number;
  readonly treatMissingData: TreatMissingData;
}
