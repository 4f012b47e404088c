/**
 * What the deployed stack holds that bills by the month or sets a price: the stack synthesised as `cdk synth`
 * does it (stage `prod`, Solana configured, bundling skipped: entries resolve against a throwaway root of stubs,
 * as test/infra/support.ts builds it), its resources counted.
 */
import { App } from 'aws-cdk-lib';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEFAULT_DEFINITION, GatewayStack } from '../infra/cdk/gateway-stack.js';

export interface FunctionInventory {
  /** The definition's name (infra/definition.ts). */
  readonly name: string;
  readonly memoryMb: number;
  readonly architecture: string;
  readonly tracing: boolean;
}

export interface StackInventory {
  readonly functions: readonly FunctionInventory[];
  readonly alarms: number;
  readonly kmsKeys: number;
  readonly dashboards: number;
  readonly logGroups: number;
  readonly queues: number;
  /** Event source mappings on SQS queues (each long-polls its queue while idle). */
  readonly sqsMappings: number;
  readonly scheduleRules: number;
  /** Global secondary indexes of the stack's table(s). */
  readonly tableIndexes: number;
  /** The stack's X-Ray sampling rule (infra/cdk/constructs/tracing.ts); null without one (every invocation priced as traced). */
  readonly sampling: { readonly ruleName: string; readonly reservoirPerSecond: number; readonly fixedRate: number } | null;
}

interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

export function stackInventory(): StackInventory {
  const rootDir = mkdtempSync(join(tmpdir(), 'gateway-cost-'));
  try {
    writeFileSync(join(rootDir, 'package-lock.json'), '{}');
    for (const { entry } of [...DEFAULT_DEFINITION.api, ...DEFAULT_DEFINITION.workers]) {
      mkdirSync(dirname(join(rootDir, entry)), { recursive: true });
      writeFileSync(join(rootDir, entry), 'export const handler = async () => undefined;\n');
    }
    const cdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> };
    const app = new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } });
    const stack = new GatewayStack(app, 'GatewayCost', {
      stage: 'prod',
      rootDir,
      definition: DEFAULT_DEFINITION,
      chains: { solanaRpcUrl: 'https://api.mainnet-beta.solana.com' },
    });
    const template = app.synth().getStackByName(stack.stackName).template as { Resources: Record<string, Resource> };
    const all = Object.values(template.Resources);
    const of = (type: string): Resource[] => all.filter((r) => r.Type === type);
    const names = [...DEFAULT_DEFINITION.api, ...DEFAULT_DEFINITION.workers].map((d) => d.name);
    const functions = of('AWS::Lambda::Function')
      .map((r): FunctionInventory | null => {
        const p = r.Properties ?? {};
        const description = typeof p.Description === 'string' ? p.Description : '';
        const name = names.find((n) => description.endsWith(`: ${n}`) || description.includes(`Runs ${n} `) || description.includes(` ${n} `));
        if (!name) return null;
        return {
          name,
          memoryMb: typeof p.MemorySize === 'number' ? p.MemorySize : 128,
          architecture: Array.isArray(p.Architectures) ? String(p.Architectures[0]) : 'x86_64',
          tracing: (p.TracingConfig as { Mode?: string } | undefined)?.Mode === 'Active',
        };
      })
      .filter((f): f is FunctionInventory => f !== null);
    const queueIds = new Set(
      Object.entries(template.Resources)
        .filter(([, r]) => r.Type === 'AWS::SQS::Queue')
        .map(([id]) => id),
    );
    const sqsMappings = of('AWS::Lambda::EventSourceMapping').filter((r) => {
      const arn = r.Properties?.EventSourceArn as { 'Fn::GetAtt'?: [string, string] } | undefined;
      return arn?.['Fn::GetAtt'] !== undefined && queueIds.has(arn['Fn::GetAtt'][0]);
    }).length;
    const rules = of('AWS::XRay::SamplingRule')
      .map((r) => (r.Properties?.SamplingRule ?? {}) as { RuleName?: string; Priority?: number; ReservoirSize?: number; FixedRate?: number })
      .sort((a, b) => (a.Priority ?? 10_000) - (b.Priority ?? 10_000));
    const rule = rules[0];
    const sampling =
      rule && typeof rule.ReservoirSize === 'number' && typeof rule.FixedRate === 'number'
        ? { ruleName: rule.RuleName ?? '', reservoirPerSecond: rule.ReservoirSize, fixedRate: rule.FixedRate }
        : null;
    return {
      functions,
      alarms: of('AWS::CloudWatch::Alarm').length,
      kmsKeys: of('AWS::KMS::Key').length,
      dashboards: of('AWS::CloudWatch::Dashboard').length,
      logGroups: of('AWS::Logs::LogGroup').length,
      queues: queueIds.size,
      sqsMappings,
      scheduleRules: of('AWS::Events::Rule').filter((r) => r.Properties?.ScheduleExpression !== undefined).length,
      tableIndexes: of('AWS::DynamoDB::Table').reduce((n, r) => n + ((r.Properties?.GlobalSecondaryIndexes as unknown[] | undefined)?.length ?? 0), 0),
      sampling,
    };
  } finally {
    rmSync(rootDir, { recursive: true, force: true });
  }
}
