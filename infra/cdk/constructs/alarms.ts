import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

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

  /** Any invocation error: handlers answer expected failures themselves, so an Error is a bug or an outage. */
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

  private atLeastOne(id: string, description: string, metric: IMetric): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      // No data means no errors / no messages, not an unknown state.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    return alarm;
  }
}
