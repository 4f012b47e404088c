import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEFAULT_DEFINITION, GatewayStack } from '../../infra/cdk/gateway-stack.js';
import type { GatewayStackProps } from '../../infra/cdk/gateway-stack.js';
import type { GatewayDefinition } from '../../infra/cdk/gateway-stack.js';

/** The feature flags of cdk.json, so tests synthesise what `cdk synth` does. */
export const CDK_CONTEXT = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }).context;

export const STAGE = 'test';

/** A stage the stack treats as production (deletion protection, retention): what the best-practice checks look at. */
export const PROD_STAGE = 'prod';

/**
 * Builds the stack with bundling skipped (stage STAGE unless `extra` names another). NodejsFunction still insists that each entry and the lock file
 * exist, and the real handlers are written elsewhere, so entries resolve against a throwaway root of stubs.
 */
export function buildStack(
  definition: GatewayDefinition = DEFAULT_DEFINITION,
  extra: Partial<GatewayStackProps> = {},
): { stack: GatewayStack; template: Template } {
  const rootDir = mkdtempSync(join(tmpdir(), 'gateway-cdk-'));
  try {
    writeFileSync(join(rootDir, 'package-lock.json'), '{}');
    for (const { entry } of [...definition.api, ...definition.workers]) {
      mkdirSync(dirname(join(rootDir, entry)), { recursive: true });
      writeFileSync(join(rootDir, entry), 'export const handler = async () => undefined;\n');
    }
    const app = new App({ context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
    const stack = new GatewayStack(app, 'GatewayTest', { stage: STAGE, ...extra, definition, rootDir });
    return { stack, template: Template.fromStack(stack) };
  } finally {
    rmSync(rootDir, { recursive: true, force: true });
  }
}

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

export const resources = (template: Template, type: string): Record<string, CfnResource> => template.findResources(type) as Record<string, CfnResource>;

export const props = (template: Template, logicalId: string): Record<string, unknown> => {
  const resource = (template.toJSON() as { Resources: Record<string, CfnResource> }).Resources[logicalId];
  if (!resource) throw new Error(`No resource ${logicalId}`);
  return resource.Properties ?? {};
};

/** Logical id behind `{Ref: id}` or `{'Fn::GetAtt': [id, attr]}` (attr must match when given). */
export function refId(value: unknown, attr?: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (attr === undefined && typeof record.Ref === 'string') return record.Ref;
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string' && (attr === undefined || getAtt[1] === attr)) return getAtt[0];
  return undefined;
}

/** Every logical id a (possibly nested) value refers to through Ref or Fn::GetAtt. */
export function referencedIds(value: unknown): Set<string> {
  const ids = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) {
      const id = refId(v);
      if (id) ids.add(id);
      Object.values(v).forEach(walk);
    }
  };
  walk(value);
  return ids;
}

export interface Statement {
  /** Logical ids of the roles whose policy holds the statement. */
  readonly roles: readonly string[];
  readonly effect: string;
  readonly actions: readonly string[];
  readonly resource: unknown;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** All identity-policy statements of the stack, flattened. */
export function statements(template: Template): Statement[] {
  return Object.values(resources(template, 'AWS::IAM::Policy')).flatMap((policy) => {
    const properties = policy.Properties ?? {};
    const roles = list(properties.Roles)
      .map((r) => refId(r))
      .filter((r): r is string => r !== undefined);
    const document = properties.PolicyDocument as { Statement: { Effect: string; Action: unknown; Resource: unknown }[] };
    return document.Statement.map((s) => ({
      roles,
      effect: s.Effect,
      actions: list(s.Action).map(String),
      resource: s.Resource,
    }));
  });
}

/** Logical id of the execution role of a function resource. */
export function roleOf(template: Template, functionId: string): string {
  const role = refId(props(template, functionId).Role, 'Arn');
  if (!role) throw new Error(`Function ${functionId} has no role`);
  return role;
}

/** Logical id of the resource that environment variable `name` of a function refers to (by Ref). */
export function envRef(template: Template, functionId: string, name: string): string {
  const environment = props(template, functionId).Environment as { Variables: Record<string, unknown> };
  const id = refId(environment.Variables[name]);
  if (!id) throw new Error(`${name} of ${functionId} is not a Ref: ${JSON.stringify(environment.Variables[name])}`);
  return id;
}

/** Logical id of the resource behind a stack output's Ref. */
export function outputRef(template: Template, output: string): string {
  const outputs = (template.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs;
  const id = refId(outputs[output]?.Value);
  if (!id) throw new Error(`Output ${output} is not a Ref`);
  return id;
}
