import { Stack, Validations } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

/**
 * Best-practice findings (cdk-nag's AwsSolutions and Serverless packs, test/infra/nag.test.ts) that the stack answers
 * by design rather than by a change, each acknowledged on the narrowest construct it concerns, with its reason.
 * An acknowledged id must match the finding exactly: a wildcard finding names the action or resource it is about.
 */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/** The identity policy CDK writes a function's grants into (its execution role's DefaultPolicy). */
export function policyOf(fn: IFunction): IConstruct {
  const policy = fn.role?.node.tryFindChild('DefaultPolicy');
  if (!policy) throw new Error(`${fn.node.path} has no execution role policy`);
  return policy;
}

/** How a wildcard finding names an attribute of a resource of the stack: `<LogicalId.Arn>`. */
export function arnToken(element: IConstruct): string {
  const cfn = (element.node.defaultChild ?? element) as CfnElement;
  return `<${Stack.of(cfn).getLogicalId(cfn)}.Arn>`;
}

export const IAM4_LAMBDA_BASIC = 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]';

/** Reasons shared by several acknowledgements. */
export const REASONS = {
  lambdaBasic:
    "AWSLambdaBasicExecutionRole is the managed policy for writing the function's own logs (logs:CreateLogStream, logs:PutLogEvents); AWS maintains it and it grants nothing else.",
  xray: 'X-Ray: xray:PutTraceSegments and xray:PutTelemetryRecords, which active tracing adds, support no resource-level permissions ("*" is the only resource IAM accepts for them).',
  tableIndexes:
    'The table grants (grantReadWriteData, grantReadData) cover the indexes of this one table (table/<name>/index/*) so that Query can read its GSIs; every index of the table is read by the same code paths, none of another table.',
  syncInvocation:
    "Invoked synchronously (by API Gateway or an event source mapping), never asynchronously: a function DLQ only receives failed asynchronous events. API failures are the caller's answer; a queue message that keeps failing moves to its queue's DLQ by the redrive policy; stream records go to the on-failure queue.",
} as const;
