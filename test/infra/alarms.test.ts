import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { API_FUNCTIONS, QUEUES, WORKER_FUNCTIONS } from '../../infra/definition.js';
import { DEFAULT_DEFINITION, FOLLOWER_WORKER, GatewayStack, MONITOR_WORKER } from '../../infra/cdk/gateway-stack.js';
import { METRIC_NAMES, METRIC_NAMESPACES } from '../../shared/observability/metrics.js';
import { buildStack, CDK_CONTEXT, outputRef, props, resources, STAGE } from './support.js';

// One synthesis of the real definition for the whole file.
const { template } = buildStack();
const alarms = Object.values(resources(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties ?? {});
const topic = (): { Ref: string } => ({ Ref: outputRef(template, 'AlarmTopicArn') });
const alarmOn = (metricName: string): Record<string, unknown>[] => alarms.filter((a) => a.MetricName === metricName);

const OPERATIONAL = [
  { metric: METRIC_NAMES.sweepsStuck, namespace: METRIC_NAMESPACES.operations, missing: 'breaching' },
  { metric: METRIC_NAMES.withdrawalsStuck, namespace: METRIC_NAMESPACES.operations, missing: 'breaching' },
  { metric: METRIC_NAMES.acceptedWorkStuck, namespace: METRIC_NAMESPACES.operations, missing: 'breaching' },
  { metric: METRIC_NAMES.insufficientGas, namespace: METRIC_NAMESPACES.chainTx, missing: 'notBreaching' },
  { metric: METRIC_NAMES.hotWalletBelowMinimum, namespace: METRIC_NAMESPACES.chainTx, missing: 'notBreaching' },
] as const;

describe('operational alarms', () => {
  test('the metrics come from workers that are deployed: the monitor and the chain-tx follower', () => {
    const names = WORKER_FUNCTIONS.map((w) => w.name);
    expect(names).toContain(MONITOR_WORKER);
    expect(names).toContain(FOLLOWER_WORKER);
    const monitor = WORKER_FUNCTIONS.find((w) => w.name === MONITOR_WORKER);
    expect(monitor).toMatchObject({ entry: 'functions/monitor/handler.ts', trigger: { kind: 'schedule', everyMinutes: 1 } });
    // It reads the table, records its re-drives and sends to the queues: no signing key.
    expect(monitor?.signs).toBeFalsy();
  });

  test.each(OPERATIONAL.map((o) => [o.metric, o]))('%s: one alarm, Maximum over 5 minutes >= 1, across networks, notifying the topic', (metric, o) => {
    const mine = alarmOn(metric);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      Namespace: o.namespace,
      Statistic: 'Maximum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: o.missing,
      AlarmActions: [topic()],
      OKActions: [topic()],
    });
    // The metric printed without dimensions: the worst network, whatever networks exist.
    expect(mine[0]?.Dimensions).toBeUndefined();
    expect(String(mine[0]?.AlarmDescription ?? '')).not.toBe('');
  });

  test('the monitor has its own Errors alarm and schedule like every worker', () => {
    const ids = Object.entries(resources(template, 'AWS::Lambda::Function'))
      .filter(([, fn]) => String(fn.Properties?.Description ?? '').endsWith(`worker: ${MONITOR_WORKER}`))
      .map(([id]) => id);
    expect(ids).toHaveLength(1);
    const [id] = ids;
    expect(alarms.filter((a) => a.MetricName === 'Errors' && JSON.stringify(a.Dimensions).includes(`"${id}"`))).toHaveLength(1);
    const rules = Object.values(resources(template, 'AWS::Events::Rule')).map((r) => r.Properties ?? {});
    expect(rules.filter((r) => JSON.stringify(r.Targets).includes(`"${id}"`)).map((r) => r.ScheduleExpression)).toEqual(['rate(1 minute)']);
  });

  test('without the workers that print them, the alarms are not created (a breaching alarm would never clear)', () => {
    const without = buildStack({
      ...DEFAULT_DEFINITION,
      workers: DEFAULT_DEFINITION.workers.filter((w) => w.name !== MONITOR_WORKER && w.name !== FOLLOWER_WORKER),
    });
    const names = Object.values(resources(without.template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties?.MetricName);
    for (const o of OPERATIONAL) expect(names).not.toContain(o.metric);
    expect(names).toContain('Errors');
  });
});

describe('monitoring settings', () => {
  const api = API_FUNCTIONS[0];
  if (!api) throw new Error('API_FUNCTIONS is empty');
  /** One API function with the settings; its entry is the real handler (bundling skipped). */
  const synth = (settings: Record<string, unknown>): Template => {
    const app = new App({ context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
    return Template.fromStack(new GatewayStack(app, 'GatewaySettings', { stage: STAGE, definition: { api: [api], workers: [], queues: QUEUES }, ...settings }));
  };
  const variables = (t: Template): Record<string, unknown> => {
    const [id] = Object.keys(resources(t, 'AWS::Lambda::Function'));
    return (props(t, id ?? '').Environment as { Variables: Record<string, unknown> }).Variables;
  };

  test('are passed to the functions as the configuration keys the handlers read', () => {
    const given = variables(synth({ hotWalletMinBalance: { ETH: '0.05' }, sweepStuckMinutes: 20, withdrawalStuckMinutes: 45, redriveAfterMinutes: 7 }));
    expect(JSON.parse(String(given.HOT_WALLET_MIN_BALANCE))).toEqual({ ETH: '0.05' });
    expect(given.SWEEP_STUCK_MINUTES).toBe('20');
    expect(given.WITHDRAWAL_STUCK_MINUTES).toBe('45');
    expect(given.REDRIVE_AFTER_MINUTES).toBe('7');
    // Unset: nothing is written and the handlers' defaults apply (shared/config/config.ts).
    const unset = variables(template);
    for (const key of ['HOT_WALLET_MIN_BALANCE', 'SWEEP_STUCK_MINUTES', 'WITHDRAWAL_STUCK_MINUTES', 'REDRIVE_AFTER_MINUTES'])
      expect(unset[key]).toBeUndefined();
  });

  test("platform limits become the handlers' DEFAULT_* keys, checked by the handlers' own parser", () => {
    const given = variables(synth({ platformLimits: { max_payment_amount: '50000.00', daily_withdrawal_limit: 'none' } }));
    expect([given.DEFAULT_MAX_PAYMENT_AMOUNT, given.DEFAULT_DAILY_WITHDRAWAL_LIMIT, given.DEFAULT_DAILY_PAYMENT_LIMIT]).toEqual([
      '50000.00',
      'none',
      undefined,
    ]);
    expect(() => synth({ platformLimits: { max_payment_amount: '5e4' } })).toThrow(/platformLimits: .*DEFAULT_MAX_PAYMENT_AMOUNT/);
    expect(() => synth({ platformLimits: { max_payout: '1' } })).toThrow(/platformLimits\.max_payout/);
  });

  test('bad values fail the synth, not the cold starts', () => {
    expect(() => synth({ hotWalletMinBalance: { ETH: '-1' } })).toThrow(/hotWalletMinBalance\.ETH/);
    expect(() => synth({ hotWalletMinBalance: { ETH: '0.05 ETH' } })).toThrow(/not a decimal/);
    expect(() => synth({ sweepStuckMinutes: 0 })).toThrow(/SWEEP_STUCK_MINUTES/);
    expect(() => synth({ withdrawalStuckMinutes: 1.5 })).toThrow(/WITHDRAWAL_STUCK_MINUTES/);
    expect(() => synth({ redriveAfterMinutes: 0 })).toThrow(/REDRIVE_AFTER_MINUTES/);
  });
});
