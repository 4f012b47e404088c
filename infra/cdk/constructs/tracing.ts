import { Stack } from 'aws-cdk-lib';
import { CfnSamplingRule } from 'aws-cdk-lib/aws-xray';
import { Construct } from 'constructs';

/**
 * How many requests X-Ray traces: a reservoir of traces a second, then a fixed share of the rest. Every function
 * has active tracing (gateway-function.ts); a trace costs USD 5 a million, so at one trace per invocation tracing
 * would be the largest cost per payment. 1 a second keeps a trace of every kind of quiet-time run, 5 % a sample of
 * busy periods.
 */
export const TRACE_SAMPLING = { reservoirPerSecond: 1, fixedRate: 0.05 } as const;

/** The sampling rule's priority (1 is the highest; the account's default rule comes last, at 10000). */
const PRIORITY = 100;

export interface GatewayTracingProps {
  readonly stage: string;
}

/**
 * The stack's X-Ray sampling rule, matching the services named after the stack (its functions are named
 * `<stack name>-<id>...`), so the account's other services keep their own rules.
 */
export class GatewayTracing extends Construct {
  readonly rule: CfnSamplingRule;

  constructor(scope: Construct, id: string, props: GatewayTracingProps) {
    super(scope, id);
    this.rule = new CfnSamplingRule(this, 'SamplingRule', {
      samplingRule: {
        // At most 32 characters, unique in the account and region.
        ruleName: `gateway-${props.stage}`.slice(0, 32),
        priority: PRIORITY,
        reservoirSize: TRACE_SAMPLING.reservoirPerSecond,
        fixedRate: TRACE_SAMPLING.fixedRate,
        serviceName: `${Stack.of(this).stackName}-*`,
        serviceType: '*',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: '*',
        version: 1,
      },
    });
  }
}
